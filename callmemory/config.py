"""The typed, frozen configs a call with memory runs on, built once from the settings model.

Provider, deadlines, database limits: nothing here is about the conversation's own models (an
agent that attaches memory brings its own session). `load_call_config` is the one read of the
environment for a call; the builders below turn an already-read `Environment` into the values
the layers underneath take as arguments. Malformed values raise `ConfigError` naming the
variable.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from callmemory import environment
from callmemory.environment import (
    DEFAULT_JOURNAL_HEARTBEAT_SECONDS,
    DEFAULT_RECALL_BUDGET_SECONDS,
    SAVE_TIMEOUT_OVER_EXTRACTION,
)
from infra.database import PoolTimeouts
from infra.long_ops import LongOpLimits
from memory.config import DEFAULT_EMBEDDING_MODEL, MemoryConfig

SHUTDOWN_PROCESS_TIMEOUT_MARGIN = 15.0
"""How much longer than the save's timeout a job process is given to end once stopped."""


@dataclass(frozen=True, slots=True)
class CallConfig:
    """Everything memory on a call needs from configuration, read once at the call's start.

    `database_url` None starts (or reuses) the embedded server in `data_dir`; the worker's main
    process starts it once and exports its URL, so each job finds it in `DATABASE_URL`.
    """

    # the environment's defaults (`environment.Environment`), the default embedding model too
    memory: MemoryConfig = field(
        default_factory=lambda: MemoryConfig(embedding_model=DEFAULT_EMBEDDING_MODEL)
    )
    recall_budget_seconds: float = DEFAULT_RECALL_BUDGET_SECONDS  # the pre-greeting deadline
    save_timeout_seconds: float = MemoryConfig().timeout_seconds + SAVE_TIMEOUT_OVER_EXTRACTION
    database: PoolTimeouts = field(default_factory=PoolTimeouts)
    database_url: str | None = None
    data_dir: str | None = None
    tracing_endpoint: str | None = None  # OTLP spans of recall and save (`infra.tracing`)
    journal_heartbeat_seconds: float = (
        DEFAULT_JOURNAL_HEARTBEAT_SECONDS  # the call's journal (`lifecycle.journal`)
    )
    journal: bool = True  # False: no journal (what a call heard dies with its job)

    @property
    def shutdown_process_timeout(self) -> float:
        """livekit's `shutdown_process_timeout` for a server whose jobs save at close.

        Above the save's whole bound, so a stuck save fails by itself (`save_timeout`) before
        livekit gives up on the job process.
        """
        return self.save_timeout_seconds + SHUTDOWN_PROCESS_TIMEOUT_MARGIN


def load_call_config(env: Mapping[str, str] | None = None) -> CallConfig:
    """The call's configuration, read from `env` (the process environment by default)."""
    return call_config(environment.read(env))


def call_config(settings: environment.Environment) -> CallConfig:
    memory = memory_config(settings)
    save_timeout = settings.call_save_timeout_seconds or (
        memory.timeout_seconds + SAVE_TIMEOUT_OVER_EXTRACTION
    )
    return CallConfig(
        memory=memory,
        recall_budget_seconds=settings.call_recall_budget_seconds,
        save_timeout_seconds=save_timeout,
        database=pool_timeouts(settings),
        database_url=settings.database_url,
        data_dir=settings.memory_pgdata,
        tracing_endpoint=settings.otel_exporter_otlp_endpoint,
        journal_heartbeat_seconds=settings.call_journal_heartbeat_seconds,
        journal=settings.journal_on,
    )


def memory_config(settings: environment.Environment, **options: object) -> MemoryConfig:
    """The provider connection and model fallbacks; keyword options are the client's own."""
    return MemoryConfig(
        base_url=settings.memory_base_url or settings.openai_base_url,
        api_key=settings.memory_api_key or settings.openai_api_key,
        env_model=settings.memory_model,
        env_reasoning_effort=settings.memory_reasoning_effort,
        timeout_seconds=settings.memory_timeout_seconds,
        structured_output=settings.memory_response_format == "json_schema",
        embedding_model=settings.memory_embedding_model.strip() or None,  # "": turned off
        embedding_timeout_seconds=settings.memory_embedding_timeout_seconds,
        database_timeout_seconds=settings.database_command_timeout_seconds,
        parse_timeout_seconds=settings.documents_parse_timeout_seconds,
        **options,  # type: ignore[arg-type]
    )


def pool_timeouts(settings: environment.Environment) -> PoolTimeouts:
    """The limits every pooled connection carries."""
    return PoolTimeouts(
        command_seconds=settings.database_command_timeout_seconds,
        statement_seconds=settings.database_statement_timeout_seconds,
        lock_seconds=settings.database_lock_timeout_seconds,
        pooler=settings.database_pooler,
    )


def long_op_limits(settings: environment.Environment) -> LongOpLimits:
    """The limits of a long operation's own connection (migrations, bulk loads)."""
    return LongOpLimits(
        statement_seconds=settings.database_long_statement_timeout_seconds,
        lock_seconds=settings.database_long_lock_timeout_seconds,
        lock_attempts=settings.database_long_lock_attempts,
    )
