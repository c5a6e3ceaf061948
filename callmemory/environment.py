"""The one settings model: every variable of the worker, the web process and the CLIs.

`Environment` is a pydantic model of the variables given (`given_values`); each field's alias
is the variable's name, and each default is written here once. Each entry point (the worker's
main process and its job entrypoint, the web process, a CLI command, `CallerMemory.from_env`)
reads it once, after `load_env_local` completed the process environment with `.env.local` (the
real environment wins over the file), and passes typed, frozen configs down (`callmemory.config`,
`worker.config`, `worker.voice_settings`, `worker.http.server.serving`). Nothing below
`callmemory` reads the environment. Reading validates every variable at once: the `ConfigError`
lists each missing or invalid one on its own line, naming it and the rule.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    model_validator,
)

from callmemory.env_local import ENV_LOCAL as ENV_LOCAL  # noqa: PLC0414  (re-exported)
from callmemory.env_local import load_env_local as load_env_local  # noqa: PLC0414
from infra.database import (
    DEFAULT_COMMAND_SECONDS,
    DEFAULT_LOCK_SECONDS,
    DEFAULT_POOL_MAX_SIZE,
    DEFAULT_STATEMENT_SECONDS,
)
from infra.long_ops import (
    DEFAULT_LONG_LOCK_ATTEMPTS,
    DEFAULT_LONG_LOCK_SECONDS,
    DEFAULT_LONG_STATEMENT_SECONDS,
)
from memory.config import (
    DEFAULT_EMBEDDING_MODEL,
    DEFAULT_EMBEDDING_TIMEOUT_SECONDS,
    DEFAULT_PARSE_TIMEOUT_SECONDS,
    DEFAULT_TIMEOUT_SECONDS,
    REASONING_EFFORTS,
    ConfigError,
)

# set but empty (or blank), these turn their feature off (given as ""); unset, the default is on
OFF_WHEN_EMPTY = frozenset({"STACKBONE_MEMORY_EMBEDDING_MODEL"})
"""Read from the working directory when present; real environment variables win over it."""


def _finite(value: float) -> float:
    if not math.isfinite(value):
        raise ValueError("must be a finite number")
    return value


def _trimmed(value: Any) -> Any:
    return value.strip() if isinstance(value, str) else value


def _folded(value: Any) -> Any:
    return value.strip().casefold() if isinstance(value, str) else value


def _postgres_url(value: str) -> str:
    """A URL asyncpg can read; the message never repeats it (it may hold a password)."""
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018  (raises on a port that is not a number)
    except ValueError:
        raise ValueError("must be a postgresql:// URL with a numeric port") from None
    if parts.scheme not in ("postgresql", "postgres"):
        raise ValueError("must be a postgresql:// URL")
    return value


PostgresUrl = Annotated[str, AfterValidator(_postgres_url)]

DEFAULT_RECALL_BUDGET_SECONDS = 0.35
"""The pre-greeting deadline: how long the greeting may wait for memory."""
SAVE_TIMEOUT_OVER_EXTRACTION = 10.0
"""Without `CALL_SAVE_TIMEOUT_SECONDS`, the save's bound is one extraction's timeout plus this."""
DEFAULT_JOURNAL_HEARTBEAT_SECONDS = 5.0
"""How often a call's journal beats while its call and save run."""
DEFAULT_JOURNAL_LOST_AFTER_SECONDS = 60.0
"""A journal silent this long belongs to a job that is gone (12 missed heartbeats)."""
DEFAULT_JOURNAL_DROP_AFTER_SECONDS = 86400.0
"""A silent journal nobody here can save is dropped after this long."""

Seconds = Annotated[float, Field(gt=0), AfterValidator(_finite)]
"""Seconds greater than 0."""
SecondsOrOff = Annotated[float, Field(ge=0), AfterValidator(_finite)]
"""Seconds, 0 or more (0 turns a server-side limit off)."""
ServerSeconds = Annotated[float, Field(ge=0.1, le=3600), AfterValidator(_finite)]
JournalSeconds = Annotated[float, Field(ge=0.1, le=7 * 86400), AfterValidator(_finite)]
Port = Annotated[int, BeforeValidator(_trimmed), Field(ge=1, le=65535)]
Flag = Annotated[Literal["1", "0", "true", "false", "yes", "no"], BeforeValidator(_folded)]
Effort = Literal["none", "minimal", "low", "medium", "high", "xhigh"]
assert set(Effort.__args__) == set(REASONING_EFFORTS)  # type: ignore[attr-defined]


class Environment(BaseModel):
    """Every variable, its default and its rule (see `.env.example` and docs/configuration.md).

    Validated from `given_values` (names matched exactly; a blank variable is unset, but
    `OFF_WHEN_EMPTY`'s), defaults too. A plain pydantic model: pydantic-settings would cost
    every command its import for reading one mapping (docs/performance.md, "A CLI without a
    voice stack").
    """

    model_config = ConfigDict(
        extra="ignore",
        frozen=True,
        populate_by_name=False,
        validate_default=True,
    )

    # database (all processes)
    database_url: PostgresUrl | None = Field(None, alias="DATABASE_URL")
    memory_pgdata: str | None = Field(None, alias="MEMORY_PGDATA")
    memory_migrate_on_start: Flag = Field("1", alias="MEMORY_MIGRATE_ON_START")
    database_pooler: Annotated[Literal["none", "transaction"], BeforeValidator(_folded)] = Field(
        "none", alias="DATABASE_POOLER"
    )
    database_direct_url: PostgresUrl | None = Field(None, alias="DATABASE_DIRECT_URL")
    database_command_timeout_seconds: Seconds = Field(
        DEFAULT_COMMAND_SECONDS, alias="DATABASE_COMMAND_TIMEOUT_SECONDS"
    )
    database_statement_timeout_seconds: SecondsOrOff = Field(
        DEFAULT_STATEMENT_SECONDS, alias="DATABASE_STATEMENT_TIMEOUT_SECONDS"
    )
    database_lock_timeout_seconds: SecondsOrOff = Field(
        DEFAULT_LOCK_SECONDS, alias="DATABASE_LOCK_TIMEOUT_SECONDS"
    )
    database_long_statement_timeout_seconds: SecondsOrOff = Field(
        DEFAULT_LONG_STATEMENT_SECONDS, alias="DATABASE_LONG_STATEMENT_TIMEOUT_SECONDS"
    )
    database_long_lock_timeout_seconds: SecondsOrOff = Field(
        DEFAULT_LONG_LOCK_SECONDS, alias="DATABASE_LONG_LOCK_TIMEOUT_SECONDS"
    )
    database_long_lock_attempts: Annotated[int, BeforeValidator(_trimmed), Field(ge=1, le=100)] = (
        Field(DEFAULT_LONG_LOCK_ATTEMPTS, alias="DATABASE_LONG_LOCK_ATTEMPTS")
    )

    # memory model provider (all processes)
    openai_base_url: str | None = Field(None, alias="OPENAI_BASE_URL")
    openai_api_key: str | None = Field(None, alias="OPENAI_API_KEY")
    memory_base_url: str | None = Field(None, alias="STACKBONE_MEMORY_BASE_URL")
    memory_api_key: str | None = Field(None, alias="STACKBONE_MEMORY_API_KEY")
    memory_model: str | None = Field(None, alias="STACKBONE_MEMORY_MODEL")
    memory_reasoning_effort: Effort | None = Field(None, alias="STACKBONE_MEMORY_REASONING_EFFORT")
    memory_timeout_seconds: Seconds = Field(
        DEFAULT_TIMEOUT_SECONDS, alias="STACKBONE_MEMORY_TIMEOUT_SECONDS"
    )
    memory_response_format: Literal["json_schema", "json_object"] = Field(
        "json_schema", alias="STACKBONE_MEMORY_RESPONSE_FORMAT"
    )
    # "" (set empty, `OFF_WHEN_EMPTY`): no embedding model
    memory_embedding_model: str = Field(
        DEFAULT_EMBEDDING_MODEL, alias="STACKBONE_MEMORY_EMBEDDING_MODEL"
    )
    memory_embedding_timeout_seconds: Seconds = Field(
        DEFAULT_EMBEDDING_TIMEOUT_SECONDS, alias="STACKBONE_MEMORY_EMBEDDING_TIMEOUT_SECONDS"
    )

    # web process
    memory_ops_retention_days: Annotated[int, BeforeValidator(_trimmed), Field(ge=1, le=3650)] = (
        Field(30, alias="MEMORY_OPS_RETENTION_DAYS")
    )
    documents_parse_timeout_seconds: ServerSeconds = Field(
        DEFAULT_PARSE_TIMEOUT_SECONDS, alias="DOCUMENTS_PARSE_TIMEOUT_SECONDS"
    )
    documents_recover_after_seconds: JournalSeconds = Field(
        300.0, alias="DOCUMENTS_RECOVER_AFTER_SECONDS"
    )
    memory_api_keys: str | None = Field(None, alias="MEMORY_API_KEYS")
    port: Annotated[int, BeforeValidator(_trimmed), Field(ge=0, le=65535)] = Field(
        8080, alias="PORT"
    )
    web_host: str = Field("0.0.0.0", alias="WEB_HOST")
    web_header_timeout_seconds: ServerSeconds = Field(10.0, alias="WEB_HEADER_TIMEOUT_SECONDS")
    web_body_timeout_seconds: ServerSeconds = Field(15.0, alias="WEB_BODY_TIMEOUT_SECONDS")
    web_max_connections: Annotated[int, BeforeValidator(_trimmed), Field(ge=1, le=100_000)] = Field(
        256, alias="WEB_MAX_CONNECTIONS"
    )
    web_max_ops_streams: Annotated[int, BeforeValidator(_trimmed), Field(ge=1, le=10_000)] = Field(
        32, alias="WEB_MAX_OPS_STREAMS"
    )
    # exports streaming at once: each holds a pooled connection, so one is always left over
    web_max_exports: Annotated[
        int, BeforeValidator(_trimmed), Field(ge=1, le=DEFAULT_POOL_MAX_SIZE - 1)
    ] = Field(2, alias="WEB_MAX_EXPORTS")
    web_database_deadline_seconds: Seconds = Field(2.0, alias="WEB_DATABASE_DEADLINE_SECONDS")
    web_metrics_port: Port | None = Field(None, alias="WEB_METRICS_PORT")
    # the chat wire's conversation model (web process); unset: the voice conversation model
    chat_base_url: str | None = Field(None, alias="CHAT_BASE_URL")
    chat_api_key: str | None = Field(None, alias="CHAT_API_KEY")
    chat_model: str | None = Field(None, alias="CHAT_MODEL")
    chat_timeout_seconds: Seconds = Field(30.0, alias="CHAT_TIMEOUT_SECONDS")
    chat_max_tool_steps: Annotated[int, BeforeValidator(_trimmed), Field(ge=0, le=16)] = Field(
        4, alias="CHAT_MAX_TOOL_STEPS"
    )

    # LiveKit (worker: required; web and `dial`: optional, all or none)
    livekit_url: str | None = Field(None, alias="LIVEKIT_URL")
    livekit_api_key: str | None = Field(None, alias="LIVEKIT_API_KEY")
    livekit_api_secret: str | None = Field(None, alias="LIVEKIT_API_SECRET")
    livekit_public_url: str | None = Field(None, alias="LIVEKIT_PUBLIC_URL")
    voice_room_token_ttl_seconds: Annotated[
        int, BeforeValidator(_trimmed), Field(ge=30, le=3600)
    ] = Field(600, alias="VOICE_ROOM_TOKEN_TTL_SECONDS")
    sip_outbound_trunk_id: str | None = Field(None, alias="SIP_OUTBOUND_TRUNK_ID")

    # agents (the web process and the worker)
    agents: Annotated[str, BeforeValidator(_trimmed)] = Field(
        "worker.catalog:agents", alias="AGENTS"
    )

    # worker
    worker_agent: str | None = Field(None, alias="WORKER_AGENT")
    worker_metrics_port: Port | None = Field(None, alias="WORKER_METRICS_PORT")
    prometheus_multiproc_dir: str | None = Field(None, alias="PROMETHEUS_MULTIPROC_DIR")
    voice_api_key: str | None = Field(None, alias="VOICE_API_KEY")
    voice_base_url: str | None = Field(None, alias="VOICE_BASE_URL")
    voice_llm_model: str = Field("gpt-4.1-mini", alias="VOICE_LLM_MODEL")
    voice_stt_model: str = Field("gpt-4o-mini-transcribe", alias="VOICE_STT_MODEL")
    voice_tts_model: str = Field("gpt-4o-mini-tts", alias="VOICE_TTS_MODEL")
    voice_tts_voice: str = Field("ash", alias="VOICE_TTS_VOICE")
    call_recall_budget_seconds: Seconds = Field(
        DEFAULT_RECALL_BUDGET_SECONDS, alias="CALL_RECALL_BUDGET_SECONDS"
    )
    call_save_timeout_seconds: Seconds | None = Field(None, alias="CALL_SAVE_TIMEOUT_SECONDS")
    call_journal: Flag = Field("1", alias="CALL_JOURNAL")
    call_journal_heartbeat_seconds: JournalSeconds = Field(
        DEFAULT_JOURNAL_HEARTBEAT_SECONDS, alias="CALL_JOURNAL_HEARTBEAT_SECONDS"
    )
    call_journal_lost_after_seconds: JournalSeconds = Field(
        DEFAULT_JOURNAL_LOST_AFTER_SECONDS, alias="CALL_JOURNAL_LOST_AFTER_SECONDS"
    )
    call_journal_drop_after_seconds: JournalSeconds = Field(
        DEFAULT_JOURNAL_DROP_AFTER_SECONDS, alias="CALL_JOURNAL_DROP_AFTER_SECONDS"
    )

    # every process
    otel_exporter_otlp_endpoint: str | None = Field(None, alias="OTEL_EXPORTER_OTLP_ENDPOINT")
    log_format: Annotated[Literal["console", "json"], BeforeValidator(_folded)] = Field(
        "console", alias="LOG_FORMAT"
    )

    @model_validator(mode="after")
    def _save_outlasts_extraction(self) -> Environment:
        save = self.call_save_timeout_seconds
        if save is not None and save <= self.memory_timeout_seconds:
            raise ValueError(
                "CALL_SAVE_TIMEOUT_SECONDS: must exceed STACKBONE_MEMORY_TIMEOUT_SECONDS"
            )
        return self

    @model_validator(mode="after")
    def _journal_bounds(self) -> Environment:
        beat, lost = self.call_journal_heartbeat_seconds, self.call_journal_lost_after_seconds
        if lost < 3 * beat:
            raise ValueError(
                "CALL_JOURNAL_LOST_AFTER_SECONDS: must be at least 3 times"
                " CALL_JOURNAL_HEARTBEAT_SECONDS"
            )
        if self.call_journal_drop_after_seconds < lost:
            raise ValueError(
                "CALL_JOURNAL_DROP_AFTER_SECONDS: must be at least CALL_JOURNAL_LOST_AFTER_SECONDS"
            )
        return self

    @model_validator(mode="after")
    def _pooler_needs_addresses(self) -> Environment:
        if self.database_pooler != "transaction":
            return self
        if self.database_url is None:
            raise ValueError(
                "DATABASE_POOLER: transaction needs DATABASE_URL (the pooler's address);"
                " the embedded server is never behind a pooler"
            )
        if self.migrate_on_start and self.database_direct_url is None:
            raise ValueError(
                "DATABASE_DIRECT_URL: is not set; migrations at start"
                " (MEMORY_MIGRATE_ON_START) cannot run through a transaction-mode pooler"
                " (DATABASE_POOLER=transaction): set it to the database's own address,"
                " or set MEMORY_MIGRATE_ON_START=0"
            )
        return self

    @property
    def long_op_url(self) -> str | None:
        """Where migrations and long operations connect: never through a pooler.

        None: the embedded server (or `DATABASE_URL`, resolved by the caller). Raises
        `ConfigError` naming `DATABASE_DIRECT_URL` when only a pooler's address is known.
        """
        if self.database_direct_url is not None:
            return self.database_direct_url
        if self.database_pooler == "transaction":
            raise ConfigError(
                "DATABASE_DIRECT_URL: is not set; migrations cannot run through a"
                " transaction-mode pooler (DATABASE_POOLER=transaction): set it to the"
                " database's own address"
            )
        return self.database_url

    @property
    def journal_on(self) -> bool:
        return self.call_journal in {"1", "true", "yes"}

    @property
    def migrate_on_start(self) -> bool:
        return self.memory_migrate_on_start in {"1", "true", "yes"}


def default(variable: str) -> Any:
    """The model's default for `variable`: typed configs take their defaults from here."""
    for field in Environment.model_fields.values():
        if field.alias == variable:
            return field.default
    raise KeyError(variable)


def variables() -> tuple[str, ...]:
    """Every variable the model reads, in declaration order."""
    return tuple(str(f.alias) for f in Environment.model_fields.values())


@dataclass(frozen=True, slots=True)
class Required:
    """Variables a process needs: one of `names` must be set (`together`: all or none)."""

    names: tuple[str, ...]
    rule: str
    together: bool = False

    def problem(self, given: Mapping[str, str]) -> list[str]:
        present = [name for name in self.names if name in given]
        if self.together:
            if not present:
                return []
            return [
                f"{name}: is not set; {self.rule}" for name in self.names if name not in present
            ]
        if present:
            return []
        alternatives = f" (or {', '.join(self.names[1:])})" if self.names[1:] else ""
        return [f"{self.names[0]}{alternatives}: is not set; {self.rule}"]


def given_values(env: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The model's variables as given (blank ones left out, but for `OFF_WHEN_EMPTY`'s, given
    as ""), before validation.

    For checks that must run even when another variable is invalid, so that every problem is
    named in one message.
    """
    given = os.environ if env is None else env
    return {
        name: value.strip() and value
        for name in variables()
        if (value := given.get(name)) is not None and (value.strip() or name in OFF_WHEN_EMPTY)
    }


def read(env: Mapping[str, str] | None = None, *, required: Sequence[Required] = ()) -> Environment:
    """The whole configuration from `env` (the process environment by default).

    Raises `ConfigError` listing every missing (`required`) or invalid variable, one per line
    (`NAME: rule`), never the value given.
    """
    return validate(given_values(env), required=required)


def validate(given: Mapping[str, Any], *, required: Sequence[Required] = ()) -> Environment:
    """The model from values already read (`given_values`); the same errors as `read`."""
    lines = [line for requirement in required for line in requirement.problem(given)]
    try:
        settings = Environment(**given)
    except ValidationError as exc:
        lines.extend(problems(exc))
    if lines:
        raise ConfigError("\n".join(lines))
    return settings


def problems(exc: ValidationError) -> list[str]:
    """One line per invalid variable: its name and the rule (never the value given)."""
    lines = []
    for error in exc.errors(include_input=False, include_url=False):
        message = str(error["msg"]).removeprefix("Value error, ")
        if error["loc"]:
            message = f"{error['loc'][0]}: {message[:1].lower()}{message[1:]}"
        lines.append(message)
    return lines


def report(error: ConfigError) -> str:
    """The one message a process prints: each problem on its own `configuration error:` line."""
    return "\n".join(f"configuration error: {line}" for line in str(error).splitlines())
