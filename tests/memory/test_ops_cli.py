"""`python -m memory ops`: an agent's events after a cursor as JSON, in a separate process."""

from __future__ import annotations

import asyncpg

from memory.api import Memory
from memory.store import expire_ops, ops_after
from testkit.model_server import ModelServer
from tests.memory.helpers import add_op
from tests.memory.test_cli_and_migrations import cli


async def test_cli_prints_the_events_after_a_cursor(
    memory: Memory, model_server: ModelServer, database_env: dict[str, str]
) -> None:
    for text in ("Has a cat.", "Has a dog."):
        model_server.answer([add_op(text)])
        assert (await memory.add("hi", "support", "+34 1")).error is None
    env = database_env
    code, body = await cli("ops", "support", env=env)
    assert code == 0
    first, second = body["events"]
    assert [first["ops"][0]["text"], second["ops"][0]["text"]] == ["Has a cat.", "Has a dog."]
    assert body["next"] == second["id"]
    code, body = await cli("ops", "support", "--after", str(first["id"]), env=env)
    assert (code, body["events"], body["next"]) == (0, [second], second["id"])
    code, body = await cli("ops", "support", "--limit", "501", env=env)
    assert code == 2 and "limit" in body["stderr"]


async def test_cli_names_an_expired_cursor_and_where_to_resume(
    memory: Memory, model_server: ModelServer, pool: asyncpg.Pool, database_env: dict[str, str]
) -> None:
    for text in ("Has a cat.", "Has a dog."):
        model_server.answer([add_op(text)])
        assert (await memory.add("hi", "support", "+34 1")).error is None
    first, second = await ops_after(pool, "support", 0, 10)
    await pool.execute(
        "update stackbone_platform.memory_ops set created_at = now() - interval '40 days'"
        " where id = $1",
        first["id"],
    )
    assert await expire_ops(pool, 30 * 86400) == 1
    code, body = await cli("ops", "support", env=database_env)
    assert code == 2 and "cursor_expired" in body["stderr"], body
    assert f"after={first['id']}" in body["stderr"]
    code, body = await cli("ops", "support", "--after", str(first["id"]), env=database_env)
    assert (code, body["events"]) == (0, [second])
