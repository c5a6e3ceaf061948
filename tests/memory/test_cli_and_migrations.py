"""The operator CLI and the migration runner, as separate processes against real Postgres."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from infra.migrate import available, migrate
from testkit.model_server import ModelServer
from tests.memory.helpers import add_op

pytestmark = pytest.mark.processes  # starts processes: not in `make check`


async def cli(*args: str, env: dict[str, str]) -> tuple[int, dict[str, Any]]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "memory",
        *args,
        env={**os.environ, **env},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await proc.communicate()
    assert proc.returncode is not None
    return proc.returncode, json.loads(out) if out.strip() else {"stderr": err.decode()}


async def test_cli_migrate_add_recall_delete(
    empty_database_url: str, model_server: ModelServer, tmp_path: Path
) -> None:
    env = {
        "DATABASE_URL": empty_database_url,
        "STACKBONE_MEMORY_BASE_URL": model_server.url,
        "STACKBONE_MEMORY_API_KEY": "k",
    }
    code, body = await cli("recall", "support", "+34 1", env=env)
    assert code == 1 and body["stderr"].startswith("error: memory_schema_missing: ")
    assert len(body["stderr"].splitlines()) == 1 and "+34 1" not in body["stderr"]
    code, body = await cli("migrate", env=env)
    assert (code, body["applied"]) == (0, [m.version for m in available()])
    code, body = await cli("migrate", env=env)
    assert (code, body["applied"]) == (0, [])
    transcript = tmp_path / "call.json"
    transcript.write_text(json.dumps([{"role": "user", "content": "I have a cat."}]))
    model_server.answer([add_op("Has a cat.")], "Talked about the cat.")
    code, body = await cli("add", "support", "+34 1", str(transcript), env=env)
    assert code == 0 and [f["content"] for f in body["facts"]] == ["Has a cat."]
    assert model_server.requests[0]["messages"][-1]["content"].count("I have a cat.") == 1
    code, body = await cli("recall", "support", "+34 1", "--calls", "1", env=env)
    assert code == 0 and body["calls"][0]["summary"] == "Talked about the cat."
    code, body = await cli("delete-all", "support", "+34 1", env=env)
    assert (code, body["deleted"]) == (0, 2)


async def test_concurrent_migrations_apply_each_version_once(empty_database_url: str) -> None:
    conns = [await asyncpg.connect(empty_database_url) for _ in range(4)]
    try:
        applied = await asyncio.gather(*(migrate(c) for c in conns))
        assert sorted(v for run in applied for v in run) == [m.version for m in available()]
        rows = await conns[0].fetch("select version from stackbone_platform.schema_migrations")
        assert sorted(r["version"] for r in rows) == [m.version for m in available()]
    finally:
        for c in conns:
            await c.close()
