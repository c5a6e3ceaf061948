"""`caller-memory memory history` (`python -m memory history`): versions as JSON."""

from __future__ import annotations

from memory.api import Memory
from testkit.model_server import ModelServer
from tests.memory.helpers import add_op, update_op
from tests.memory.test_cli_and_migrations import cli


async def test_cli_prints_the_versions_in_order(
    memory: Memory, model_server: ModelServer, database_env: dict[str, str]
) -> None:
    model_server.answer([add_op("Has a cat.")])
    assert (await memory.add("hi", "support", "+34 1")).error is None
    model_server.answer([update_op("f1", "Has two cats.")])
    assert (await memory.add("hi", "support", "+34 1")).error is None
    code, body = await cli("history", "support", "+34 1", env=database_env)
    assert code == 0
    versions = body["versions"]
    assert [(v["content"], v["endedBy"]) for v in versions] == [
        ("Has a cat.", "update"),
        ("Has two cats.", None),
    ]
    assert versions[0]["validTo"] == versions[1]["validFrom"]
    code, body = await cli("history", "support", "", env=database_env)
    assert code == 2 and body["stderr"].startswith("error: memory_invalid_request: ")
    assert body["stderr"].strip().endswith("(field user_id)")
