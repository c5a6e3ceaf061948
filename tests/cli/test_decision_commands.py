"""`caller-memory decisions list|show` as a separate process against the test database: the
decision routes' bodies on stdout (newest first, by agent and status), one line and exit 2 for
an unknown agent or decision."""

from __future__ import annotations

import asyncio
import json

import asyncpg

from chat import Decision, SessionAddress, ToolCall, TurnResult, claim, decide, park
from chat.turn_result import Parked
from memory.settings import CodeDefaults
from memory.store import Declared, register
from tests.cli.test_caller_memory import run
from tests.held.test_store import held_turn

AGENT = "refunds"


async def parked(pool: asyncpg.Pool, key: str, call_id: str) -> str:
    """A turn of `refunds` parked on `issue_refund` on session `key`: the decision's id."""
    address = SessionAddress(key.ljust(32, "k"), "session", AGENT, key, "cust-1", {})
    held = await claim(pool, address, 10)
    result = TurnResult(
        steps=1, parked=Parked(ToolCall(call_id, "issue_refund", '{"amount": 5}'), ("approve",))
    )
    pending = await park(pool, held, held_turn(), result)
    return pending.id


async def test_list_and_show(database_url: str, pool: asyncpg.Pool) -> None:
    env = {"DATABASE_URL": database_url}
    await register(pool, [Declared(AGENT, CodeDefaults(), ("issue_refund",), ())], "t", "worker")
    older = await parked(pool, "thread-1", "call_1")
    newer = await parked(pool, "thread-2", "call_2")
    await decide(pool, older, Decision("approve"), 10)

    (code, out, err), (_, pending, _), (_, first, _), (shown_code, one, _) = await asyncio.gather(
        run("decisions", "list", "--agent", AGENT, env=env),
        run("decisions", "list", "--status", "pending", env=env),
        run("decisions", "list", "--limit", "1", env=env),
        run("decisions", "show", older, env=env),
    )
    assert code == 0, err
    listed = json.loads(out)["decisions"]
    assert [(d["id"], d["status"]) for d in listed] == [(newer, "pending"), (older, "approved")]
    assert listed[0]["tool"] == "issue_refund" and listed[0]["arguments"] == '{"amount": 5}'
    assert [d["id"] for d in json.loads(pending)["decisions"]] == [newer]
    assert [d["id"] for d in json.loads(first)["decisions"]] == [newer]

    shown = json.loads(one)
    assert shown_code == 0 and shown["status"] == "approved"
    assert shown["decision"]["kind"] == "approve"
    assert (shown["sessionKey"], shown["toolCallId"]) == ("thread-1", "call_1")


async def test_an_unknown_agent_or_decision_is_one_line_and_exit_2(database_url: str) -> None:
    env = {"DATABASE_URL": database_url}
    idents = ("not-a-uuid", "00000000-0000-4000-8000-000000000002")
    (code, out, err), (status, _, maybe), *shown = await asyncio.gather(  # all at once
        run("decisions", "list", "--agent", "nobody", env=env),
        run("decisions", "list", "--status", "maybe", env=env),
        *(run("decisions", "show", ident, env=env) for ident in idents),
    )
    assert (code, out) == (2, "")
    assert err.strip().startswith("error: agent_not_found")
    assert len(shown) == len(idents)
    for code, out, err in shown:
        assert (code, out) == (2, "")
        assert err.strip() == (
            "error: decision_not_found: decisionId: no decision with this id (field decisionId)"
        )
    assert status == 2 and "maybe" in maybe
