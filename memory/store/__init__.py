"""Postgres access for memory: the SQL of facts, calls, revisions, history, settings and their
activity log, the shared extraction settings, the ops log, call journals and the idempotency
keys of adds over HTTP. Database exceptions become typed memory failures here (`translated`),
once. Search keeps its own SQL in `memory.search`.
"""

from memory.store import _extraction_settings as extraction_settings_store
from memory.store import _settings as settings_store
from memory.store._activity import ActivityEntry, list_activity
from memory.store._agents import (
    Declared,
    RegisteredAgent,
    register,
    registered,
    unregister,
)
from memory.store._agents import (
    Source as AgentSource,
)
from memory.store._customers import DEFAULT_CUSTOMERS, MAX_CUSTOMERS, Customer, customers_after
from memory.store._db_errors import DB_ERRORS, MISSING, privileges, translated
from memory.store._export import SECTIONS as EXPORT_SECTIONS
from memory.store._export import export_person
from memory.store._extraction_settings import ExtractionSettings
from memory.store._facts import DIRECT_WRITE, MemoryStore, Snapshot, stored_source
from memory.store._idempotency import (
    KEY_LIFE_SECONDS,
    Claimed,
    Found,
    KeyOf,
    claim_key,
    expire_keys,
    keep_answer,
    release_key,
)
from memory.store._journal import (
    ClaimedJournal,
    HeardTurns,
    JournalEntry,
    JournalHeader,
    append_entries,
    claim_silent,
    drop_claimed,
    drop_journal,
    heard_turns,
    journal_entries,
    mark_save_started,
    open_journal,
    record_interrupted,
    start_swept_save,
)
from memory.store._opening import Opened, open_call
from memory.store._ops_log import DEFAULT_LIMIT, MAX_CURSOR, MAX_LIMIT, ops_after
from memory.store._ops_retention import expire_ops, expire_ops_batch
from memory.store._overview import AgentOverview, FailedSaves, overview
from memory.store._reads import DEFAULT_READS, MAX_READS, Read, ReadRecord, reads_of, record_read
from memory.store._retention import (
    bounded_agents,
    expire_records,
    load_retention,
    save_retention,
)
from memory.store._retention import expire_batch as expire_records_batch
from memory.store._settings import (
    Queryable,
    StoredSettings,
    load_call_settings,
    load_settings,
    offer_code_bindings,
    save_settings,
)
from memory.store._stored_text import read_json, read_text, stored_json, stored_text

__all__ = [
    "DB_ERRORS",
    "DEFAULT_CUSTOMERS",
    "DEFAULT_LIMIT",
    "DEFAULT_READS",
    "DIRECT_WRITE",
    "EXPORT_SECTIONS",
    "KEY_LIFE_SECONDS",
    "MAX_CURSOR",
    "MAX_CUSTOMERS",
    "MAX_LIMIT",
    "MAX_READS",
    "MISSING",
    "ActivityEntry",
    "AgentOverview",
    "AgentSource",
    "Claimed",
    "ClaimedJournal",
    "Customer",
    "Declared",
    "ExtractionSettings",
    "FailedSaves",
    "Found",
    "HeardTurns",
    "JournalEntry",
    "JournalHeader",
    "KeyOf",
    "MemoryStore",
    "Opened",
    "Queryable",
    "Read",
    "ReadRecord",
    "RegisteredAgent",
    "Snapshot",
    "StoredSettings",
    "append_entries",
    "bounded_agents",
    "claim_key",
    "claim_silent",
    "customers_after",
    "drop_claimed",
    "drop_journal",
    "expire_keys",
    "expire_ops",
    "expire_ops_batch",
    "expire_records",
    "expire_records_batch",
    "export_person",
    "extraction_settings_store",
    "heard_turns",
    "journal_entries",
    "keep_answer",
    "list_activity",
    "load_call_settings",
    "load_retention",
    "load_settings",
    "mark_save_started",
    "offer_code_bindings",
    "open_call",
    "open_journal",
    "ops_after",
    "overview",
    "privileges",
    "read_json",
    "read_text",
    "reads_of",
    "record_interrupted",
    "record_read",
    "register",
    "registered",
    "release_key",
    "save_retention",
    "save_settings",
    "settings_store",
    "start_swept_save",
    "stored_json",
    "stored_source",
    "stored_text",
    "translated",
    "unregister",
]
