"""Start-up of the worker's main process, before the LiveKit CLI takes over.

Configuration is checked first so a missing variable is named instead of a stack trace. The
database is resolved here, once: with no `DATABASE_URL` the embedded server is started and its
URL exported, so job processes inherit it instead of attaching themselves.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import structlog

from callmemory import environment, registration
from callmemory.agent_import import DEFAULT_AGENTS
from callmemory.config import long_op_limits
from infra.database import PoolTimeouts, create_pool, database_url
from infra.database_failure import migrations_variable, naming
from infra.logs import configure_logging
from infra.long_ops import LongOpLimits
from infra.migrate import run_migrations
from memory.config import ConfigError
from memory.search import log_search_availability, read_search_availability
from memory.store import offer_code_bindings
from worker.catalog import Catalog, load_catalog
from worker.config import WorkerConfig, worker_config, worker_requirements

log = structlog.get_logger(__name__)

NEEDS_LIVEKIT = frozenset({"start", "dev", "connect"})
NO_PREPARATION = frozenset({"download-files", "--help", "-h"})
"""Subcommands that serve no call: they run with no configuration and no database."""
AGENT_VAR = "WORKER_AGENT"


def served_agent(catalog: Catalog, name: str | None) -> str:
    """The catalog agent this worker registers for (`WORKER_AGENT`; default the first)."""
    name = name or next(iter(catalog)).name
    if name not in {a.name for a in catalog}:
        raise ConfigError(f"{AGENT_VAR}: names no agent in the catalog")
    return name


async def prepare_database(
    url: str,
    catalog: Catalog,
    *,
    migrations: LongOpLimits | None,
    pool_limits: PoolTimeouts,
    direct_url: str | None = None,
    configured: str | None = None,
    agents_path: str = DEFAULT_AGENTS,
) -> None:
    """Apply migrations (unless `migrations` is None) on a connection of their own, with the
    long-operation limits, at `direct_url` (default `url`: no pooler between); then offer
    code-declared identity keys and register the catalog's agents on a pool of the call's, and
    say how search ranks here.

    `configured` is `DATABASE_URL` as given (None: the embedded server); a database failure is
    raised as `DatabaseFailed`, one line naming the variable and the cause."""
    if migrations is not None:
        with naming(migrations_variable(direct_url), direct_url or configured):
            await run_migrations(direct_url or url, migrations)
    with naming("DATABASE_URL", configured):
        pool = await create_pool(url, min_size=1, max_size=1, timeouts=pool_limits)
        try:
            await offer_code_bindings(pool, catalog.identity_keys())
            declared = [registration.declared(agent) for agent in catalog]
            await registration.register_agents(pool, declared, f"AGENTS={agents_path}", "module")
            search = await read_search_availability(pool)
        finally:
            await pool.close()
    log_search_availability(search)


def needs_preparation(argv: Sequence[str]) -> bool:
    """False for help and `download-files` (an image build step): no configuration needed."""
    return bool(argv) and argv[0] not in NO_PREPARATION


@dataclass(frozen=True, slots=True)
class MainProcess:
    """What the worker's main process read, once, before the LiveKit CLI takes over."""

    settings: environment.Environment
    config: WorkerConfig
    agent: str


def _checked(*, needs_livekit: bool) -> MainProcess:
    """The settings and the served agent, every problem of both in one `ConfigError`."""
    given = environment.given_values()  # the process's one read of its environment
    lines: list[str] = []
    try:
        settings = environment.validate(given, required=worker_requirements(needs_livekit))
        config = worker_config(settings)
    except ConfigError as exc:
        lines.extend(str(exc).splitlines())
    try:
        catalog = load_catalog(given.get("AGENTS") or DEFAULT_AGENTS)
        agent = served_agent(catalog, given.get(AGENT_VAR))
    except ConfigError as exc:
        lines.extend(str(exc).splitlines())
    if lines:
        raise ConfigError("\n".join(lines))
    return MainProcess(settings, config, agent)


async def prepare_main_process(argv: Sequence[str]) -> MainProcess:
    """Check configuration, resolve and prepare the database."""
    configure_logging()
    main = _checked(needs_livekit=bool(argv) and argv[0] in NEEDS_LIVEKIT)
    catalog = load_catalog(main.settings.agents)
    url = database_url(main.settings.database_url, main.settings.memory_pgdata)
    migrations = long_op_limits(main.settings) if main.settings.migrate_on_start else None
    await prepare_database(
        url,
        catalog,
        migrations=migrations,
        pool_limits=main.config.call.database,
        direct_url=main.settings.database_direct_url,
        configured=main.settings.database_url,
        agents_path=main.settings.agents,
    )
    log.info("worker.prepared", agent_id=main.agent)
    return main
