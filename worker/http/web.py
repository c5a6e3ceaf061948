"""The `web` process: the HTTP API for memory settings and guidance, customer memory, voice calls.

`create_app` composes the routes over a pool, the agent catalog and the API keys, so tests build
the same app over their own database. `main` reads the environment, applies migrations, offers
the catalog's code-declared identity keys to the binding, and serves (`python -m worker.http`).
Every failure becomes its HTTP answer in one place, `worker.http.server.errors`.
"""

from __future__ import annotations

import asyncio
import functools
import signal
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any, TypeVar

import asyncpg
import structlog
from aiohttp import web

from callmemory import environment
from callmemory.agent_import import DEFAULT_AGENTS, load_agents
from callmemory.environment import default
from chat import ChatConfig, ChatTurns, ConversationModel
from infra import database, tracing
from infra.database import create_pool, database_url
from infra.database_failure import (
    FAILURES,
    DatabaseFailed,
    failure_line,
    migrations_variable,
    naming,
)
from infra.embedded import EmbeddedStartFailed
from infra.logs import configure_logging
from infra.long_ops import ThroughPooler
from infra.migrate import MigrationLockTimeout, run_migrations
from memory.api import open_memory
from memory.config import ConfigError, MemoryConfig
from memory.documents import Documents
from memory.search import log_search_availability, read_search_availability
from memory.store import MemoryStore, offer_code_bindings
from worker.agent_directory import AgentDirectory
from worker.catalog import Catalog
from worker.dispatcher import Dispatcher
from worker.document_recovery import recovery_running
from worker.http import console, routes, wires
from worker.http.server.auth import ApiKey, scopes_of, undeclared_agents
from worker.http.server.context import (
    API_KEYS,
    CATALOG,
    DATABASE_DEADLINE,
    DIRECTORY,
    DOCUMENTS,
    MEMORY,
    POOL,
    Route,
    guarded,
)
from worker.http.server.errors import error_middleware
from worker.http.server.headers import install as install_headers
from worker.http.server.local_key import Announce, LocalKeyError, for_web
from worker.http.server.metrics import PORT_VAR, metrics_app
from worker.http.server.serving import LIMITS, MAX_BODY_BYTES, ServerLimits, make_runner, start_site
from worker.http.server.web_config import WebConfig, load_web_config
from worker.ops_retention import RetentionConfig, retention_running
from worker.voice_settings import VoiceSettings

T = TypeVar("T")
log = structlog.get_logger(__name__)

ROUTES: tuple[Route, ...] = (*routes.ROUTES, *wires.ROUTES)
PAGES: tuple[Route, ...] = console.PAGES
DEFAULT_PORT = 8080
DEFAULT_HOST = "0.0.0.0"  # a Procfile process must listen on every interface
DOCUMENTS_DRAIN_SECONDS = 10.0  # background ingests at shutdown; past it they stay pending
CLOSE_SECONDS = 2.0  # graceful pool close at shutdown; then its connections are cut


async def _register_agents(app: web.Application) -> None:
    """The loaded definitions into the registry; then warn of keys naming unknown agents."""
    directory = app[DIRECTORY]
    await directory.register(app[POOL])
    keys: tuple[ApiKey, ...] = app[API_KEYS]
    for key_name, agents in undeclared_agents(keys, directory.names()).items():
        log.warning("web.key_agents_undeclared", key=key_name, agents=agents)


async def _offer_identity_keys(app: web.Application) -> None:
    await offer_code_bindings(app[POOL], app[CATALOG].identity_keys())


def _retention_context(
    pool: asyncpg.Pool, config: RetentionConfig
) -> Callable[[web.Application], AsyncIterator[None]]:
    async def running(_: web.Application) -> AsyncIterator[None]:
        async with retention_running(pool, config):
            yield

    return running


def _recovery_context(
    stale_seconds: float,
) -> Callable[[web.Application], AsyncIterator[None]]:
    async def running(app: web.Application) -> AsyncIterator[None]:
        async with recovery_running(app[DOCUMENTS], stale_seconds):
            yield

    return running


async def _close_memory(app: web.Application) -> None:
    await app[wires.CHAT_TURNS].model.aclose()
    await app[DOCUMENTS].aclose(grace_seconds=DOCUMENTS_DRAIN_SECONDS)
    await app[MEMORY].aclose()


@functools.cache
def _api_document() -> dict[str, Any]:
    """The OpenAPI document of every route and page: one per process (the tables are fixed),
    never changed after it is built."""
    return routes.openapi.document((*ROUTES, routes.openapi.ROUTE), PAGES)


def create_app(
    *,
    pool: asyncpg.Pool,
    catalog: Catalog,
    api_keys: Sequence[ApiKey],
    memory_config: MemoryConfig,
    voice: VoiceSettings | None = None,
    chat: ChatConfig | None = None,
    database_deadline_seconds: float = default("WEB_DATABASE_DEADLINE_SECONDS"),
    limits: ServerLimits | None = None,
    retention: RetentionConfig | None = None,
    recover_documents_after: float | None = None,
    agents_path: str = DEFAULT_AGENTS,
) -> web.Application:
    """The API over an open pool (which the caller owns) and a catalog; `voice` reaches LiveKit,
    `chat` the conversation model of the chat wire."""
    app = web.Application(middlewares=[error_middleware], client_max_size=MAX_BODY_BYTES)
    app[LIMITS] = limits or ServerLimits()
    app[POOL] = pool
    app[DATABASE_DEADLINE] = database_deadline_seconds
    app[CATALOG] = catalog
    app[DIRECTORY] = AgentDirectory(catalog, agents_path)
    app[API_KEYS] = tuple(api_keys)
    app[MEMORY] = open_memory(MemoryStore(pool), memory_config)
    app[DOCUMENTS] = Documents(pool, memory_config)
    app[routes.DISPATCHER] = None if voice is None else Dispatcher(voice)
    config = chat or ChatConfig()
    agents = wires.DirectoryAgents(app[DIRECTORY], pool, app[DOCUMENTS], database_deadline_seconds)
    app[wires.TURN_AGENTS] = agents
    app[wires.CHAT_TURNS] = ChatTurns(
        pool,
        ConversationModel(config),
        config,
        app[MEMORY],
        agents,
        deadline_seconds=database_deadline_seconds,
    )
    app[console.CLIENT_JS_PATH] = console.CLIENT_JS
    app[routes.SEARCH] = routes.SearchSeen()
    app[routes.OPS_STREAMS] = routes.OpsStreams(app[LIMITS].max_ops_streams)
    app[routes.EXPORT_SLOTS] = routes.ExportSlots(app[LIMITS].max_exports)
    app.on_shutdown.append(routes.stop_streams)  # before handlers are awaited
    app[routes.openapi.DOCUMENT] = _api_document()
    for route in (*ROUTES, routes.openapi.ROUTE):
        app.router.add_route(route.method, route.path, guarded(route))
    for page in PAGES:
        app.router.add_route(page.method, page.path, page.handler)
    app.on_startup.append(_register_agents)
    app.on_startup.append(_offer_identity_keys)
    if retention is not None:  # the ops log's retention task, stopped before the pool closes
        app.cleanup_ctx.append(_retention_context(pool, retention))
    if recover_documents_after is not None:  # ingests a stopped process left pending
        app.cleanup_ctx.append(_recovery_context(recover_documents_after))
    install_headers(app)
    app.on_cleanup.append(_close_memory)  # before the pool closes (registered later)
    return app


async def _serve(url: str, catalog: Catalog, config: WebConfig) -> web.Application:
    if config.migrate_on_start:  # before the pool: its limits are the routes'
        migrations_url = config.direct_url or url
        with naming(
            migrations_variable(config.direct_url), config.direct_url or config.database_url
        ):
            await run_migrations(migrations_url, config.long_ops)
    with naming("DATABASE_URL", config.database_url):
        pool = await create_pool(url, timeouts=config.database)
        search = await read_search_availability(pool)
    log_search_availability(search)
    app = create_app(
        pool=pool,
        catalog=catalog,
        api_keys=config.api_keys,
        memory_config=config.memory,
        voice=config.voice,
        chat=config.chat,
        database_deadline_seconds=config.database_deadline_seconds,
        limits=config.limits,
        retention=RetentionConfig(config.ops_retention_days, limits=config.long_ops),
        recover_documents_after=config.documents_recover_after_seconds,
        agents_path=config.agents,
    )
    app[routes.SEARCH].value = search

    async def close_pool(_: web.Application) -> None:
        await database.close_pool(pool, CLOSE_SECONDS)

    app.on_cleanup.append(close_pool)
    log.info(
        "web.configured",
        agents=len(catalog),
        api_keys=scopes_of(config.api_keys),
        voice_routes=config.voice is not None,
    )
    return app


async def _listen(
    app: web.Application, host: str, port: int, metrics: int | None, announce: Announce | None
) -> None:
    """Serve until SIGINT or SIGTERM, then close connections and run the cleanups."""
    runner = make_runner(app)
    await runner.setup()
    side = web.AppRunner(metrics_app(), access_log=None)
    await side.setup()
    try:
        site = await _bound(start_site(runner, host, port), "PORT", port)
        if metrics is not None:
            await _bound(web.TCPSite(side, host, metrics).start(), PORT_VAR, metrics)
        log.info(
            "web.listening", port=site.bound_port, metrics_port=metrics, limits=repr(app[LIMITS])
        )
        if announce is not None:  # the local console key: printed, never logged
            print(announce(site.bound_port), flush=True)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, stop.set)
        await stop.wait()
    finally:
        await side.cleanup()
        await runner.cleanup()


async def _bound(starting: Awaitable[T], variable: str, port: int) -> T:
    """The started listener, or a `ConfigError` naming the variable when the port is taken."""
    try:
        return await starting
    except OSError as exc:
        raise ConfigError(f"{variable}={port}: cannot listen there ({exc.strerror})") from None


async def _run(
    url: str, catalog: Catalog, config: WebConfig, announce: Announce | None = None
) -> None:
    app = await _serve(url, catalog, config)
    await _listen(app, *config.address, config.metrics_port, announce)


def _load_catalog(path: str) -> Catalog:
    started = time.perf_counter()
    catalog = Catalog(load_agents(path))
    duration = round((time.perf_counter() - started) * 1000, 1)
    log.info("web.agents_loaded", agents=len(catalog), duration_ms=duration)
    return catalog


def main() -> int:
    environment.load_env_local()
    try:
        config = load_web_config()  # the process's one read of its environment
    except ConfigError as exc:  # every problem named at once, one line each
        print(environment.report(exc), file=sys.stderr)
        return 2
    configure_logging(install_handler=True, fmt=config.log_format)
    tracing.configure(config.tracing_endpoint)
    try:
        url = database_url(config.database_url, config.data_dir)
    except EmbeddedStartFailed as exc:
        print(f"database error: {exc}", file=sys.stderr)
        return 1
    try:
        catalog = _load_catalog(config.agents)
    except ConfigError as exc:  # AGENTS names nothing loadable: one line
        print(environment.report(exc), file=sys.stderr)
        return 2
    try:
        config, announce = for_web(config)  # a first local run's console key
    except (LocalKeyError, OSError) as exc:
        print(f"configuration error: local console key: {exc}", file=sys.stderr)
        return 2
    return _served(url, catalog, config, announce)


def _served(url: str, catalog: Catalog, config: WebConfig, announce: Announce | None) -> int:
    """Run the service to its end; a start-up failure is one line and an exit status."""
    try:
        asyncio.run(_run(url, catalog, config, announce))
    except ConfigError as exc:  # a port already taken
        print(f"configuration error: {exc}", file=sys.stderr)
        return 2
    except (MigrationLockTimeout, ThroughPooler, DatabaseFailed) as exc:
        print(f"database error: {exc}", file=sys.stderr)
        return 1
    except FAILURES as exc:  # a later start-up step (the identity keys offered)
        print(
            f"database error: {failure_line(exc, 'DATABASE_URL', config.database_url)}",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
