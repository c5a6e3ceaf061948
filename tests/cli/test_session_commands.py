"""`caller-memory sessions list|show|delete` as a separate process against the test database:
the operator routes' bodies on stdout, one line and exit 2 for an unknown agent or session."""

from __future__ import annotations

import asyncio
import json

import asyncpg

from chat import SessionAddress, TurnRecord, claim, record, session_id
from memory.settings import CodeDefaults
from memory.store import Declared, register
from tests.cli.test_caller_memory import run

AGENT = "support"  # the shipped catalog's agent
RUN = {  # one tool call of the turn's run detail, decided by a person
    "id": "call_1",
    "name": "issue_refund",
    "arguments": '{"amount": 5}',
    "result": "refunded",
    "error": None,
    "durationMs": 2.5,
    "decision": "approve",
}


async def kept_session(
    pool: asyncpg.Pool, key: str, user: str, reply: str, agent: str = AGENT
) -> str:
    ident = session_id("session", agent, key, ["bound", "customerId", user])
    held = await claim(pool, SessionAddress(ident, "session", agent, key, user), 60)
    messages = [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": reply}]
    await record(pool, held, TurnRecord(messages, "Hi", reply, 12, 3, 41.5, [RUN]))
    return ident


async def test_list_show_delete(database_url: str, pool: asyncpg.Pool) -> None:
    env = {"DATABASE_URL": database_url}
    older = await kept_session(pool, "older", "crm/1", "Hello one.")
    newer = await kept_session(pool, "newer", "crm/2", "Hello two.")

    (code, out, err), (_, first, _), (shown_code, one, _) = await asyncio.gather(
        run("sessions", "list", AGENT, env=env),
        run("sessions", "list", AGENT, "--limit", "1", env=env),
        run("sessions", "show", AGENT, older, env=env),
    )
    assert code == 0, err
    listed = json.loads(out)
    assert listed["agentId"] == AGENT
    assert [s["sessionId"] for s in listed["sessions"]] == [newer, older]  # newest first
    assert [s["key"] for s in json.loads(first)["sessions"]] == ["newer"]

    shown = json.loads(one)
    assert shown_code == 0 and shown["session"]["userId"] == "crm/1"
    [turn] = shown["turns"]
    assert (turn["userMessage"], turn["reply"], turn["promptTokens"]) == ("Hi", "Hello one.", 12)
    assert turn["durationMs"] == 41.5
    assert turn["run"] == {
        "toolCalls": [RUN],
        "promptTokens": 12,
        "completionTokens": 3,
        "durationMs": 41.5,
    }

    code, out, _ = await run("sessions", "delete", AGENT, older, env=env)
    assert (code, json.loads(out)) == (0, {"agentId": AGENT, "sessionId": older, "deleted": True})
    code, out, err = await run("sessions", "show", AGENT, older, env=env)
    assert (code, out) == (2, "")
    assert err.startswith("error: session_not_found: ") and len(err.splitlines()) == 1


async def test_refusals_name_the_field(database_url: str) -> None:
    env = {"DATABASE_URL": database_url}
    limits = (("100", True), ("101", False), ("0", False))
    (code, out, err), (deleted, _, not_found), *listed = await asyncio.gather(  # all at once
        run("sessions", "list", "nobody", env=env),
        run("sessions", "delete", AGENT, "not-a-session-id", env=env),
        *(run("sessions", "list", AGENT, "--limit", limit, env=env) for limit, _ in limits),
    )
    assert (code, out) == (2, "") and err.startswith("error: agent_not_found: agentId")
    assert deleted == 2 and "session_not_found" in not_found
    assert "(field sessionId)" in not_found
    for (_, ok), (code, _, err) in zip(limits, listed, strict=True):
        assert (code == 0) is ok, err
        if not ok:
            assert code == 2 and "--limit" in err


async def test_an_agent_only_the_registry_knows(database_url: str, pool: asyncpg.Pool) -> None:
    """A team's own agent (declared by its worker or web process, not by this project) is
    reachable from the CLI once registered; before, it is an unknown agent."""
    env = {"DATABASE_URL": database_url}
    ident = await kept_session(pool, "desk", "crm/7", "Hello desk.", agent="front-desk")
    code, out, err = await run("sessions", "show", "front-desk", ident, env=env)
    assert (code, out) == (2, "") and err.startswith("error: agent_not_found: agentId")
    desk = Declared("front-desk", CodeDefaults(read=True, identity_key="customerId"), (), ())
    await register(pool, [desk], "worker desk.py", "worker")
    code, out, err = await run("sessions", "show", "front-desk", ident, env=env)
    assert code == 0, err
    assert json.loads(out)["turns"][0]["reply"] == "Hello desk."
