"""`python -m memory ops`: an agent's events after a cursor as JSON, in a separate process."""

from __future__ import annotations

from memory.api import Memory
from testkit.model_server import ModelServer
from tests.memory.helpers import add_op
from tests.memory.test_cli_and_migrations import cli


async def test_cli_prints_the_events_after_a_cursor(
    memory: Memory, model_server: ModelServer, database_url: str
) -> None:
    for text in ("Has a cat.", "Has a dog."):
        model_server.answer([add_op(text)])
        assert (await memory.add("hi", "support", "+34 1")).error is None
    env = {"DATABASE_URL": database_url}
    code, body = await cli("ops", "support", env=env)
    assert code == 0
    first, second = body["events"]
    assert [first["ops"][0]["text"], second["ops"][0]["text"]] == ["Has a cat.", "Has a dog."]
    assert body["next"] == second["id"]
    code, body = await cli("ops", "support", "--after", str(first["id"]), env=env)
    assert (code, body["events"], body["next"]) == (0, [second], second["id"])
    code, body = await cli("ops", "support", "--limit", "501", env=env)
    assert code == 2 and "limit" in body["stderr"]
