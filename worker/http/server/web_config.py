"""What the web process runs on, read once from its environment at start-up.

`load_web_config` is the process's one read: the settings model and the API keys, with every
invalid variable of both named in one `ConfigError`. The rest of the process gets typed,
frozen values from here.
"""

from __future__ import annotations

from dataclasses import dataclass

from callmemory import environment
from callmemory.config import long_op_limits, memory_config, pool_timeouts
from chat import ChatConfig
from infra.database import PoolTimeouts
from infra.logs import LogFormat
from infra.long_ops import LongOpLimits
from memory.config import ConfigError, MemoryConfig
from worker.http.server.auth import ENV_VAR, ApiKey, parse_api_keys
from worker.http.server.serving import ServerLimits, server_limits
from worker.voice_settings import LIVEKIT_TOGETHER, VoiceSettings, voice_settings


@dataclass(frozen=True, slots=True)
class WebConfig:
    api_keys: tuple[ApiKey, ...]
    memory: MemoryConfig
    voice: VoiceSettings | None  # None: the voice routes answer 503
    chat: ChatConfig
    limits: ServerLimits
    database_deadline_seconds: float
    database: PoolTimeouts
    long_ops: LongOpLimits  # migrations at start
    database_url: str | None  # None: the embedded server, in `data_dir`
    direct_url: str | None  # migrations' address when `database_url` is a pooler's
    data_dir: str | None
    migrate_on_start: bool
    ops_retention_days: int
    documents_recover_after_seconds: float
    address: tuple[str, int]
    metrics_port: int | None
    log_format: LogFormat
    tracing_endpoint: str | None
    agents: str = "worker.catalog:agents"  # AGENTS: the import path of the definitions


def load_web_config() -> WebConfig:
    """The web process's configuration; every missing or invalid variable named at once."""
    given = environment.given_values()
    lines: list[str] = []
    api_keys: tuple[ApiKey, ...] = ()
    try:  # the variable's JSON rules live with the keys (`worker.http.server.auth`)
        api_keys = parse_api_keys(given.get(ENV_VAR))
    except ValueError as exc:
        lines.append(str(exc))
    try:
        settings = environment.validate(given, required=(LIVEKIT_TOGETHER,))
    except ConfigError as exc:
        lines.extend(str(exc).splitlines())
    if lines:
        raise ConfigError("\n".join(lines))
    return web_config(settings, api_keys)


def web_config(settings: environment.Environment, api_keys: tuple[ApiKey, ...]) -> WebConfig:
    return WebConfig(
        api_keys=api_keys,
        memory=memory_config(settings),
        voice=voice_settings(settings),
        chat=chat_config(settings),
        limits=server_limits(settings),
        database_deadline_seconds=settings.web_database_deadline_seconds,
        database=pool_timeouts(settings),
        long_ops=long_op_limits(settings),
        database_url=settings.database_url,
        direct_url=settings.database_direct_url,
        data_dir=settings.memory_pgdata,
        migrate_on_start=settings.migrate_on_start,
        ops_retention_days=settings.memory_ops_retention_days,
        documents_recover_after_seconds=settings.documents_recover_after_seconds,
        address=(settings.web_host, settings.port),
        metrics_port=settings.web_metrics_port,
        log_format=settings.log_format,
        tracing_endpoint=settings.otel_exporter_otlp_endpoint,
        agents=settings.agents,
    )


def chat_config(settings: environment.Environment) -> ChatConfig:
    """The chat wire's conversation model: CHAT_*, else the voice model's, else OpenAI's."""
    return ChatConfig(
        base_url=settings.chat_base_url or settings.voice_base_url or settings.openai_base_url,
        api_key=settings.chat_api_key or settings.voice_api_key or settings.openai_api_key,
        model=settings.chat_model or settings.voice_llm_model,
        timeout_seconds=settings.chat_timeout_seconds,
        max_tool_steps=settings.chat_max_tool_steps,
    )
