"""A privilege the service's role lacks is named with its fix: the object, the privilege and the
docs anchor, from the CLI (a read and a write) as from the web process; and a server the pool
rides out leaves one line per retry in the log, no traceback."""

from __future__ import annotations

import io
import logging

import asyncpg
import pytest

from infra.database import create_pool
from infra.logs import record_formatter
from testkit.model_server import ModelServer
from tests.cli.test_caller_memory import USER, run
from tests.memory.helpers import add_op
from tests.role_databases import RoleDatabase, role_database  # noqa: F401 (a fixture)
from tests.waiting import eventually

pytestmark = pytest.mark.processes  # starts processes: not in `make check`

S = "stackbone_platform"
ANCHOR = "docs/deployment.md#your-own-postgres"


def _env(db: RoleDatabase, server: ModelServer) -> dict[str, str]:
    return {
        "DATABASE_URL": db.url,
        "STACKBONE_MEMORY_BASE_URL": server.url,
        "STACKBONE_MEMORY_API_KEY": "k",
        "MEMORY_MIGRATE_ON_START": "0",
    }


async def test_recall_without_the_schema_names_usage_on_it(
    role_database: RoleDatabase,  # noqa: F811 (the imported fixture)
    model_server: ModelServer,
) -> None:
    await role_database.as_superuser(f'alter schema {S} owner to "{role_database.admin}"')
    code, out, err = await run(
        "memory", "recall", "support", USER, env=_env(role_database, model_server)
    )
    assert code == 1 and out == "", err
    [line] = err.splitlines()
    assert line.startswith("error: memory_unavailable: ")
    assert f"the role needs USAGE on schema {S}" in line and ANCHOR in line
    assert "InsufficientPrivilegeError" not in line


async def test_a_write_without_the_table_names_the_writing_privileges(
    role_database: RoleDatabase,  # noqa: F811 (the imported fixture)
    model_server: ModelServer,
) -> None:
    role = role_database.url.split("//", 1)[1].split(":", 1)[0]
    await role_database.as_superuser(  # it may read the facts, not change them
        f'alter table {S}.memory_facts owner to "{role_database.admin}"',
        f'grant select on {S}.memory_facts to "{role}"',
    )
    model_server.answer([add_op("Prefers email.")], "Asked about the invoice.")
    code, out, err = await run(
        "memory",
        "add",
        "support",
        USER,
        "examples/transcript.json",
        env=_env(role_database, model_server),
    )
    assert code == 1 and out == "", err
    [line] = [ln for ln in err.splitlines() if ln.startswith("error: ")]
    assert line.startswith("error: memory_persist_failed: memory write failed: ")
    assert "permission denied for table memory_facts" in line
    assert "SELECT, INSERT, UPDATE and DELETE on table memory_facts" in line and ANCHOR in line
    assert "Prefers email" not in err and USER not in err  # no fact, no number


async def test_the_pool_rides_out_a_refused_reconnect_in_one_line_per_retry(
    pg_admin_url: str, database_url: str
) -> None:
    """The server closes the pool's floor connection and refuses new ones for a while (as
    during a restart): asyncpg retries, each failure one line with its class and SQLSTATE."""
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(record_formatter("console"))
    logger = logging.getLogger("asyncpg.pool")
    logger.addHandler(handler)
    pool = await create_pool(database_url, min_size=1, max_size=1)
    admin = await asyncpg.connect(pg_admin_url)
    name = await pool.fetchval("select current_database()")
    try:
        await admin.execute(f'alter database "{name}" allow_connections false')
        await admin.execute(
            "select pg_terminate_backend(pid) from pg_stat_activity where datname = $1", name
        )

        async def logged() -> bool:
            return "Failed to restore the pool connection floor" in out.getvalue()

        await eventually(logged, "the pool's failed reconnect logged")
        await admin.execute(f'alter database "{name}" allow_connections true')

        async def restored() -> bool:
            return pool.get_size() == 1

        await eventually(restored, "the pool's floor restored")
        assert await pool.fetchval("select 1") == 1
    finally:
        await admin.execute(f'alter database "{name}" allow_connections true')
        await admin.close()
        await pool.close()
        logger.removeHandler(handler)
    lines = [line for line in out.getvalue().splitlines() if line.strip()]
    assert lines and all("Failed to restore the pool connection floor" in ln for ln in lines)
    assert "Traceback" not in out.getvalue()
    assert "error_type=" in lines[0] and "error_code=55000" in lines[0], lines[0]
