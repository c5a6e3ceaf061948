"""`caller-memory memory export` (`python -m memory export`): the person's document as JSON."""

from __future__ import annotations

from memory.api import Memory
from testkit.model_server import ModelServer
from tests.memory.helpers import add_op
from tests.memory.test_cli_and_migrations import cli


async def test_cli_prints_the_persons_document_and_nobody_elses(
    memory: Memory, model_server: ModelServer, database_env: dict[str, str]
) -> None:
    for user, fact in (("+34 1", "Has a cat."), ("+34 2", "Has a keptaxolotl.")):
        model_server.answer([add_op(fact)], "A call.")
        assert (await memory.add("hi", "support", user)).error is None
    code, body = await cli("export", "support", "+34 1", env=database_env)
    assert code == 0, body
    assert [f["content"] for f in body["facts"]] == ["Has a cat."]
    assert len(body["calls"]) == 1 and body["userId"] == "+34 1"
    assert "keptaxolotl" not in str(body)
    code, body = await cli("export", "support", "", env=database_env)
    assert code == 2 and body["stderr"].startswith("error: memory_invalid_request: ")
    assert body["stderr"].strip().endswith("(field user_id)")


async def test_cli_reads_are_recorded_and_listed(
    memory: Memory, model_server: ModelServer, database_env: dict[str, str]
) -> None:
    model_server.answer([add_op("Has a cat.")], "A call.")
    assert (await memory.add("hi", "support", "+34 1")).error is None
    assert (await cli("recall", "support", "+34 1", env=database_env))[0] == 0
    assert (await cli("export", "support", "+34 1", env=database_env))[0] == 0
    code, body = await cli("reads", "support", "+34 1", env=database_env)
    assert code == 0
    seen = [(r["reader"], r["channel"], r["route"]) for r in body["reads"]]
    assert seen == [("cli", "cli", "export"), ("cli", "cli", "recall")]
    assert body["reads"][0]["returned"]["facts"] == 1
    assert body["reads"][1]["returned"] == {"facts": 1, "calls": 1}
