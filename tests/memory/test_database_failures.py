"""A deploy's database failures, from the CLI and both processes as real subprocesses: one line
naming the variable (`DATABASE_URL`, its password masked) and the cause, exit code 1, no
traceback. A refused connection, a wrong password, a missing privilege, a failed migration."""

from __future__ import annotations

import asyncio
import os
import secrets
import socket
import sys
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import urlsplit

import asyncpg
import pytest

from infra.database_failure import masked
from testkit.databases import as_role, with_database

pytestmark = pytest.mark.processes  # starts the service's processes

PREFIXES = ("LIVEKIT_", "OPENAI_", "VOICE_", "WEB_", "CALL_", "STACKBONE_", "MEMORY_", "DATABASE_")
BASE_ENV = {k: v for k, v in os.environ.items() if not k.startswith(PREFIXES)}
WORKER_ENV = {
    "LIVEKIT_URL": "ws://127.0.0.1:1",
    "LIVEKIT_API_KEY": "k",
    "LIVEKIT_API_SECRET": "s" * 32,
    "OPENAI_API_KEY": "sk-test",
}
COMMANDS = {  # what each process runs, and the prefix of its one line
    "cli": (("-m", "worker.cli", "memory", "recall", "support", "+1555"), "error: "),
    "cli migrate": (("-m", "worker.cli", "memory", "migrate"), "error: "),
    "web": (("-m", "worker.http"), "database error: "),
    "worker": (("-m", "worker.agent", "start"), "database error: "),
}


async def _run(command: str, url: str, cwd: Path) -> tuple[int, str]:
    args, _ = COMMANDS[command]
    env = {**BASE_ENV, **WORKER_ENV, "DATABASE_URL": url, "PORT": str(_closed_port())}
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        *args,
        env=env,
        cwd=cwd,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    _, err = await asyncio.wait_for(proc.communicate(), 120)
    assert proc.returncode is not None
    return proc.returncode, err.decode()


def _closed_port() -> int:
    with socket.socket() as s:  # bound, never listening, closed: nothing answers there
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _one_line(command: str, err: str) -> str:
    """The process's last stderr line, checked to be its only failure line."""
    assert "Traceback" not in err, err
    prefix = COMMANDS[command][1]
    lines = [line for line in err.splitlines() if line.startswith(prefix)]
    assert len(lines) == 1, err
    return lines[0].removeprefix(prefix)


@pytest.mark.parametrize("command", list(COMMANDS))
async def test_a_refused_connection_is_one_line_naming_the_variable(
    command: str, tmp_path: Path
) -> None:
    port = _closed_port()
    url = f"postgresql://app:hunter2@127.0.0.1:{port}/memory"
    code, err = await _run(command, url, tmp_path)
    assert code == 1
    line = _one_line(command, err)
    assert line.startswith(f"DATABASE_URL=postgresql://app:***@127.0.0.1:{port}/memory: ")
    assert "connection refused" in line
    assert "hunter2" not in err


async def _asks_for_passwords(url: str) -> bool:
    parts = urlsplit(url)
    host = parts.netloc.rpartition("@")[2]
    wrong = parts._replace(netloc=f"{parts.username or 'postgres'}:not-the-password@{host}")
    try:
        conn = await asyncpg.connect(wrong.geturl())
    except asyncpg.InvalidPasswordError:
        return True
    await conn.close()
    return False


@pytest.mark.parametrize("command", list(COMMANDS))
async def test_a_wrong_password_is_one_line_naming_the_variable(
    command: str, pg_admin_url: str, tmp_path: Path
) -> None:
    if not await _asks_for_passwords(pg_admin_url):
        pytest.skip("the test server trusts every login (embedded); CI's Debian pass runs this")
    user = urlsplit(pg_admin_url).username
    url = as_role(pg_admin_url, user or "postgres", "wrong-secret")
    code, err = await _run(command, url, tmp_path)
    assert code == 1
    line = _one_line(command, err)
    assert line.startswith(f"DATABASE_URL=postgresql://{user}:***@")
    assert line.endswith(f'password authentication failed for user "{user}"')
    assert "wrong-secret" not in err


@pytest.fixture
async def without_create(pg_admin_url: str) -> AsyncIterator[str]:
    """A database its role may connect to but not create a schema in: a role of its own when
    the test server's is a superuser (who bypasses privileges), else the server's role having
    revoked its own CREATE on a database it owns."""
    name = "nocreate_" + uuid.uuid4().hex[:10]
    admin = await asyncpg.connect(pg_admin_url)
    await admin.execute(f'create database "{name}"')
    url = with_database(pg_admin_url, name)
    superuser = await admin.fetchval("select rolsuper from pg_roles where rolname = current_user")
    if superuser:
        password = secrets.token_hex(8)
        await admin.execute(f"create role \"{name}\" login password '{password}'")
        url = as_role(url, name, password)
    else:
        await admin.execute(f'revoke create on database "{name}" from public, current_user')
    yield url
    await admin.execute(f'drop database if exists "{name}" with (force)')
    if superuser:
        await admin.execute(f'drop role if exists "{name}"')
    await admin.close()


@pytest.mark.parametrize("command", ["cli migrate", "web", "worker"])
async def test_a_missing_privilege_names_the_migration_the_cause_and_the_docs(
    command: str, without_create: str, tmp_path: Path
) -> None:
    code, err = await _run(command, without_create, tmp_path)
    assert code == 1
    line = _one_line(command, err)
    name = urlsplit(without_create).path.lstrip("/")
    assert line.startswith("DATABASE_URL=postgresql://")
    assert line.endswith(
        f": migration version table failed: permission denied for database {name}"
        " (the role's privileges are listed in docs/deployment.md#your-own-postgres)"
    )
    password = urlsplit(without_create).password
    assert not password or password not in err


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("postgresql://app:s3cret@db:5432/app", "postgresql://app:***@db:5432/app"),
        (
            "postgresql://app:p%40ss@db/app?sslmode=require",
            "postgresql://app:***@db/app?sslmode=require",
        ),
        (
            "postgresql://app@db/app?password=s3cret&sslmode=require",
            "postgresql://app@db/app?password=***&sslmode=require",
        ),
        (
            "postgresql://postgres:@/postgres?host=/tmp/pg",
            "postgresql://postgres:***@/postgres?host=/tmp/pg",
        ),
        ("postgresql://app@db/app", "postgresql://app@db/app"),
    ],
)
def test_a_url_is_shown_without_its_password(url: str, shown: str) -> None:
    assert masked(url) == shown
