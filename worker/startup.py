"""Start-up of the worker's main process, before the LiveKit CLI takes over.

Configuration is checked first so a missing variable is named instead of a stack trace. The
database is resolved here, once: with no `DATABASE_URL` the embedded server is started and its
URL exported, so job processes inherit it instead of attaching themselves.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import asyncpg
import structlog

from infra.database import create_pool, database_url
from infra.logs import configure_logging
from infra.migrate import migrate
from memory import environment
from memory.config import ConfigError
from memory.store import offer_code_bindings
from worker.catalog import Catalog, default_catalog
from worker.config import WorkerConfig, load_worker_config

log = structlog.get_logger(__name__)

NEEDS_LIVEKIT = frozenset({"start", "dev", "connect"})
NO_PREPARATION = frozenset({"download-files", "--help", "-h"})
"""Subcommands that serve no call: they run with no configuration and no database."""
MIGRATE_VAR = "MEMORY_MIGRATE_ON_START"
AGENT_VAR = "WORKER_AGENT"


def migrations_enabled(env: Mapping[str, str] | None = None) -> bool:
    return environment.read(env).migrate_on_start


def served_agent(catalog: Catalog, env: Mapping[str, str] | None = None) -> str:
    """The catalog agent this worker registers for (one agent name per worker process)."""
    name = environment.given_values(env).get(AGENT_VAR) or next(iter(catalog)).name
    if name not in {a.name for a in catalog}:
        raise ConfigError(f"{AGENT_VAR}: names no agent in the catalog")
    return name


async def prepare_database(pool: asyncpg.Pool, catalog: Catalog) -> None:
    """Apply migrations (unless disabled) and offer code-declared identity keys."""
    if migrations_enabled():
        async with pool.acquire() as conn:
            await migrate(conn)
    await offer_code_bindings(pool, catalog.identity_keys())


def needs_preparation(argv: Sequence[str]) -> bool:
    """False for help and `download-files` (an image build step): no configuration needed."""
    return bool(argv) and argv[0] not in NO_PREPARATION


def _checked(*, needs_livekit: bool) -> tuple[WorkerConfig, str]:
    """The configuration and the served agent, every problem of both in one `ConfigError`."""
    lines: list[str] = []
    try:
        config = load_worker_config(needs_livekit=needs_livekit)
    except ConfigError as exc:
        lines.extend(str(exc).splitlines())
    try:
        agent = served_agent(default_catalog())
    except ConfigError as exc:
        lines.extend(str(exc).splitlines())
    if lines:
        raise ConfigError("\n".join(lines))
    return config, agent


async def prepare_main_process(argv: Sequence[str]) -> tuple[WorkerConfig, str]:
    """Check configuration, resolve and prepare the database; returns config and agent name."""
    configure_logging()
    config, agent = _checked(needs_livekit=bool(argv) and argv[0] in NEEDS_LIVEKIT)
    catalog = default_catalog()
    pool = await create_pool(database_url(), min_size=1, max_size=1)
    try:
        await prepare_database(pool, catalog)
    finally:
        await pool.close()
    log.info("worker.prepared", agent_id=agent)
    return config, agent
