"""A command finds the embedded server another process (`make run`) keeps up on the same data
directory and connects to it, without starting or joining it; a dead or starting server is
never taken for a running one."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import asyncpg
import pytest

from infra.embedded import running_url
from tests.cli.test_caller_memory import run
from tests.memory.test_cli_and_migrations import cli

pytestmark = [
    pytest.mark.skipif(
        os.environ.get("TEST_DATABASE_URL") is not None, reason="needs the embedded server"
    ),
    pytest.mark.processes,  # starts an embedded server and CLI processes
]

HOLD = """
import sys
from pathlib import Path
from infra.embedded import start_embedded
start_embedded(Path(sys.argv[1]))
print("up", flush=True)
sys.stdin.read()  # up until the test closes stdin, then stopped as the last one out
"""


@pytest.fixture(name="held")
async def _held(pgdata_dir: Path) -> AsyncIterator[tuple[Path, asyncio.subprocess.Process]]:
    """An embedded server kept up by another process, as `make run` keeps it."""
    data_dir = pgdata_dir
    holder = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        HOLD,
        str(data_dir),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
    )
    assert holder.stdin is not None and holder.stdout is not None
    try:
        assert await asyncio.wait_for(holder.stdout.readline(), 90) == b"up\n"
        yield data_dir, holder
    finally:
        holder.stdin.close()
        await asyncio.wait_for(holder.wait(), 30)


async def test_a_command_uses_the_running_server_without_joining_it(
    held: tuple[Path, asyncio.subprocess.Process],
) -> None:
    data_dir, holder = held
    url = running_url(data_dir)
    assert url is not None
    conn = await asyncpg.connect(url)
    assert await conn.fetchval("select 41 + 1") == 42
    await conn.close()
    server = (data_dir / "postmaster.pid").read_text().split()[0]

    env = {"MEMORY_PGDATA": str(data_dir), "DATABASE_URL": ""}
    code, body = await cli("migrate", env=env)
    assert code == 0 and body["applied"], body
    code, out, err = await run("memory", "recall", "support", "+34 1", env=env)
    assert (code, json.loads(out)["facts"]) == (0, [])
    assert "database.embedded_running" in err and "database.embedded_started" not in err
    assert (data_dir / "postmaster.pid").read_text().split()[0] == server  # the same server
    handles = json.loads((data_dir / ".handle_pids.json").read_text())
    assert handles == [holder.pid]  # only its keeper: the commands never joined


async def test_a_stopped_server_is_not_running(
    held: tuple[Path, asyncio.subprocess.Process],
) -> None:
    data_dir, holder = held
    assert holder.stdin is not None
    holder.stdin.close()  # its keeper leaves: the server stops
    await asyncio.wait_for(holder.wait(), 30)
    assert running_url(data_dir) is None


def test_a_pid_file_that_is_not_ready_or_names_no_server_is_not_running(tmp_path: Path) -> None:
    assert running_url(tmp_path) is None  # no pid file
    lines = [str(os.getpid()), str(tmp_path), "0", "5432", str(tmp_path), "", "0 0"]
    (tmp_path / "postmaster.pid").write_text("\n".join([*lines, "ready"]) + "\n")
    assert running_url(tmp_path) is None  # this PID is python, not postgres; no socket
    (tmp_path / "postmaster.pid").write_text("\n".join([*lines, "starting"]) + "\n")
    assert running_url(tmp_path) is None
