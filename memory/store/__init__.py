"""Postgres access for memory: the SQL of facts, calls, revisions, history, settings and their
activity log, the shared extraction settings and the ops log. Database exceptions become typed
memory failures here (`translated`), once. Search keeps its own SQL in `memory.search`.
"""

from memory.store import _extraction_settings as extraction_settings_store
from memory.store import _settings as settings_store
from memory.store._activity import ActivityEntry, list_activity
from memory.store._db_errors import DB_ERRORS, translated
from memory.store._extraction_settings import ExtractionSettings
from memory.store._facts import DIRECT_WRITE, MemoryStore, Snapshot
from memory.store._ops_log import DEFAULT_LIMIT, MAX_CURSOR, MAX_LIMIT, ops_after
from memory.store._settings import (
    Queryable,
    StoredSettings,
    load_call_settings,
    load_settings,
    offer_code_bindings,
    save_settings,
)

__all__ = [
    "DB_ERRORS",
    "DEFAULT_LIMIT",
    "DIRECT_WRITE",
    "MAX_CURSOR",
    "MAX_LIMIT",
    "ActivityEntry",
    "ExtractionSettings",
    "MemoryStore",
    "Queryable",
    "Snapshot",
    "StoredSettings",
    "extraction_settings_store",
    "list_activity",
    "load_call_settings",
    "load_settings",
    "offer_code_bindings",
    "ops_after",
    "save_settings",
    "settings_store",
    "translated",
]
