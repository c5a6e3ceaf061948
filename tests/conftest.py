"""Fixtures: a real Postgres (embedded, or `TEST_DATABASE_URL`) with one database per test,
cloned from a migrated template, and the local model server.

With `--through-pgbouncer` a real PgBouncer in transaction mode stands in front of it: every
test's `database_url` is PgBouncer's, the `pool` fixture is made for it (`DATABASE_POOLER`
`transaction`), the per-test database carries the role-level timeouts docs/deployment.md asks
the operator for, and tests marked `direct_only` (they need a session of their own) are left out.
`direct_database_url` is always the database's own address.

Under pytest-xdist (`make test`) each worker is a session of its own: its own embedded server (or
its own template on `TEST_DATABASE_URL`'s server), its own PgBouncer, its own temporary
directories. A test that requests none of `SERVER_FIXTURES` and is not marked `processes` is
marked `unit` automatically: `make check` runs those (docs/testing.md)."""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from urllib.parse import urlsplit

import asyncpg
import pytest

from infra.database import PoolTimeouts, create_pool
from infra.embedded import import_pgserver, start_embedded
from infra.logs import configure_logging
from infra.migrate import migrate
from memory.api import Memory, open_memory
from memory.config import MemoryConfig
from memory.store._facts import MemoryStore
from testkit.databases import drop_database, superuser_missing, with_database
from testkit.model_server import ModelServer
from testkit.pgbouncer import PgBouncer
from testkit.spare_databases import SpareDatabases

configure_logging()

THROUGH_PGBOUNCER = "--through-pgbouncer"
WORKER = os.environ.get("PYTEST_XDIST_WORKER", "main")
"""This process's name under pytest-xdist (`gw0`, ...): in the names of what it creates."""
SERVER_FIXTURES = frozenset({"pg_admin_url", "fault_server"})
"""A test requesting one of these (directly or through another fixture) needs a database."""


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        THROUGH_PGBOUNCER,
        action="store_true",
        help="run the database fixtures through a real PgBouncer in transaction mode",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "direct_only(reason): needs a direct session; left out --through-pgbouncer"
    )
    config.addinivalue_line(
        "markers", "pgvector: needs pgvector with HNSW on the test server; skipped without it"
    )
    config.addinivalue_line(
        "markers", "processes: starts processes of its own (left out of `make check`)"
    )
    config.addinivalue_line(
        "markers", "unit: set automatically: no database, no processes (`make check` runs these)"
    )


def is_unit(item: pytest.Item) -> bool:
    """No database fixture requested (closure included) and not marked `processes`."""
    fixtures = set(getattr(item, "fixturenames", ()))
    return not fixtures & SERVER_FIXTURES and item.get_closest_marker("processes") is None


def sends_through_the_pool(item: pytest.Item) -> bool:
    """What PgBouncer can break: a test whose statements go to `database_url` (PgBouncer's
    address in that run) and that is not marked `direct_only`. Any other test runs exactly as
    it does without PgBouncer, so `--through-pgbouncer` leaves it out."""
    fixtures = set(getattr(item, "fixturenames", ()))
    return "database_url" in fixtures and item.get_closest_marker("direct_only") is None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if is_unit(item):
            item.add_marker(pytest.mark.unit)
    if not config.getoption(THROUGH_PGBOUNCER):
        return
    kept = [item for item in items if sends_through_the_pool(item)]
    if len(kept) != len(items):
        config.hook.pytest_deselected(items=[i for i in items if i not in kept])
        items[:] = kept


@pytest.fixture(scope="session")
def pg_admin_url() -> Iterator[str]:
    if url := os.environ.get("TEST_DATABASE_URL"):
        yield url
        return
    data_dir = Path(tempfile.mkdtemp(prefix=f"caller-memory-pgtest-{WORKER}-")) / "pgdata"
    url = start_embedded(data_dir, cleanup_mode="delete")

    async def tune() -> None:
        conn = await asyncpg.connect(url)
        await conn.execute("alter system set fsync = off")
        await conn.execute("alter system set synchronous_commit = off")
        await conn.execute("select pg_reload_conf()")
        await conn.close()

    asyncio.run(tune())
    yield url
    # stopped (and deleted) now rather than at exit: an xdist worker can end without running the
    # package's exit handler, which would leave its server running
    import_pgserver().get_server(data_dir, start=False).cleanup()
    shutil.rmtree(data_dir.parent, ignore_errors=True)


@pytest.fixture(scope="session")
def pgbouncer(request: pytest.FixtureRequest, pg_admin_url: str) -> Iterator[PgBouncer | None]:
    """PgBouncer in front of the test server with `--through-pgbouncer` (fails if missing)."""
    if not request.config.getoption(THROUGH_PGBOUNCER):
        yield None
        return
    bouncer = PgBouncer(pg_admin_url)
    bouncer.start()
    yield bouncer
    bouncer.stop()


@pytest.fixture(scope="session")
def pool_timeouts(pgbouncer: PgBouncer | None) -> PoolTimeouts:
    """The limits of the service's pools in this run (made for the pooler when there is one)."""
    return PoolTimeouts(pooler="none" if pgbouncer is None else "transaction")


@pytest.fixture(scope="session")
def template_db(pg_admin_url: str) -> Iterator[str]:
    name = f"tmpl_{WORKER}_{uuid.uuid4().hex[:12]}"

    async def create() -> None:
        admin = await asyncpg.connect(pg_admin_url)
        await admin.execute(f'create database "{name}"')
        await admin.close()
        conn = await asyncpg.connect(with_database(pg_admin_url, name))
        await migrate(conn)
        await conn.close()

    async def drop() -> None:
        admin = await asyncpg.connect(pg_admin_url)
        await drop_database(admin, name)
        await admin.close()

    asyncio.run(create())
    yield name
    asyncio.run(drop())


@pytest.fixture(scope="session")
def pgvector_missing(pg_admin_url: str, template_db: str) -> str | None:
    """Why the test server cannot rank by meaning (no pgvector, or one without HNSW), or None."""

    async def semantic() -> bool:
        conn = await asyncpg.connect(with_database(pg_admin_url, template_db))
        try:
            return bool(
                await conn.fetchval(
                    "select count(*) from stackbone_platform.capabilities"
                    " where name = 'memory.semantic'"
                )
            )
        finally:
            await conn.close()

    return None if asyncio.run(semantic()) else "needs pgvector (0.5 or later) on the test server"


@pytest.fixture(autouse=True)
def _pgvector_or_skip(request: pytest.FixtureRequest) -> None:
    """Tests marked `pgvector` skip, with the reason, on a server without it (docs/testing.md)."""
    marked = request.node.get_closest_marker("pgvector") is not None
    if marked and (reason := request.getfixturevalue("pgvector_missing")):
        pytest.skip(reason)


async def _fresh_database(admin_url: str, template: str | None) -> str:
    name = "t_" + uuid.uuid4().hex[:12]
    admin = await asyncpg.connect(admin_url)
    clause = f' template "{template}"' if template else ""
    await admin.execute(f'create database "{name}"{clause}')
    await admin.close()
    return name


async def _drop(admin_url: str, name: str) -> None:
    admin = await asyncpg.connect(admin_url)
    await drop_database(admin, name)
    await admin.close()


async def _role_limits(url: str, name: str, limits: PoolTimeouts) -> None:
    """What docs/deployment.md asks of the operator behind a pooler: the role's own limits."""
    conn = await asyncpg.connect(url)
    for setting, value in limits.server_settings().items():
        await conn.execute(f'alter role current_user in database "{name}" set {setting} = {value}')
    await conn.close()


@pytest.fixture(scope="session")
def spare_databases(
    request: pytest.FixtureRequest, pg_admin_url: str, template_db: str
) -> Iterator[SpareDatabases]:
    """Databases like the template made ahead, while the tests before run: clones, and used
    ones emptied back to the template where that is safe (`testkit.spare_databases`; not through
    PgBouncer, whose pooled server sessions a reset would end; `TEST_DATABASE_REUSE=0` clones
    every time)."""
    reuse = (
        os.environ.get("TEST_DATABASE_REUSE", "1") != "0"
        and not request.config.getoption(THROUGH_PGBOUNCER)
        and asyncio.run(superuser_missing(pg_admin_url)) is None
    )
    spares = SpareDatabases(pg_admin_url, template_db, reuse=reuse)
    yield spares
    spares.close()


@pytest.fixture
async def direct_database_url(
    pg_admin_url: str, spare_databases: SpareDatabases
) -> AsyncIterator[str]:
    """A migrated database of its own for this test, at the database's own address."""
    name = await asyncio.to_thread(spare_databases.take)
    yield with_database(pg_admin_url, name)
    spare_databases.hand_back(name)


@pytest.fixture
async def database_url(
    direct_database_url: str, pgbouncer: PgBouncer | None, pool_timeouts: PoolTimeouts
) -> str:
    """A migrated database of its own for this test (through PgBouncer when it runs)."""
    if pgbouncer is None:
        return direct_database_url
    name = urlsplit(direct_database_url).path.lstrip("/")
    await _role_limits(direct_database_url, name, pool_timeouts)
    return pgbouncer.url_for(name)


@pytest.fixture
def database_env(
    database_url: str, direct_database_url: str, pool_timeouts: PoolTimeouts
) -> dict[str, str]:
    """The database variables a process of the service is given for this test's database."""
    return {
        "DATABASE_URL": database_url,
        "DATABASE_POOLER": pool_timeouts.pooler,
        "DATABASE_DIRECT_URL": direct_database_url,
    }


@pytest.fixture
def pgdata_dir() -> Iterator[Path]:
    """A data directory for an embedded server a test starts, outside pytest's own temporary
    directory: as root the package opens the data directory's parents to its `pgserver` user,
    and every pytest process that starts closes `/tmp/pytest-of-root` again (mode 0700), which
    made such a server's `initdb` fail now and then under xdist."""
    base = Path(tempfile.mkdtemp(prefix=f"caller-memory-embedded-{WORKER}-"))
    yield base / "pgdata"
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
async def empty_database_url(pg_admin_url: str) -> AsyncIterator[str]:
    """A database with no schema at all."""
    name = await _fresh_database(pg_admin_url, None)
    yield with_database(pg_admin_url, name)
    await _drop(pg_admin_url, name)


@pytest.fixture
async def pool(database_url: str, pool_timeouts: PoolTimeouts) -> AsyncIterator[asyncpg.Pool]:
    # the service's own pool
    p = await create_pool(database_url, min_size=1, max_size=10, timeouts=pool_timeouts)
    yield p
    await p.close()


@pytest.fixture
async def model_server() -> AsyncIterator[ModelServer]:
    server = ModelServer()
    await server.start()
    yield server
    await server.stop()


@pytest.fixture
def memory_config(model_server: ModelServer) -> MemoryConfig:
    return MemoryConfig(base_url=model_server.url, api_key="test-key", timeout_seconds=5)


@pytest.fixture
async def memory(pool: asyncpg.Pool, memory_config: MemoryConfig) -> AsyncIterator[Memory]:
    memory = open_memory(MemoryStore(pool), memory_config)
    yield memory
    await memory.aclose()


@pytest.fixture
async def doomed_pool(pg_admin_url: str, template_db: str) -> AsyncIterator[asyncpg.Pool]:
    """A pool whose database is dropped underneath it."""
    name = "t_" + uuid.uuid4().hex[:12]
    admin = await asyncpg.connect(pg_admin_url)
    await admin.execute(f'create database "{name}" template "{template_db}"')
    url = with_database(pg_admin_url, name)
    pool = await asyncpg.create_pool(url, min_size=1, max_size=2)
    assert pool is not None
    yield pool
    pool.terminate()
    await drop_database(admin, name)
    await admin.close()
