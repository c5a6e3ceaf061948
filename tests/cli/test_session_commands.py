"""`caller-memory sessions list|show|delete` as a separate process against the test database:
the operator routes' bodies on stdout, one line and exit 2 for an unknown agent or session."""

from __future__ import annotations

import json

import asyncpg

from chat import SessionAddress, TurnRecord, claim, record, session_id
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


async def kept_session(pool: asyncpg.Pool, key: str, user: str, reply: str) -> str:
    ident = session_id("session", AGENT, key, ["bound", "customerId", user])
    held = await claim(pool, SessionAddress(ident, "session", AGENT, key, user), 60)
    messages = [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": reply}]
    await record(pool, held, TurnRecord(messages, "Hi", reply, 12, 3, 41.5, [RUN]))
    return ident


async def test_list_show_delete(database_url: str, pool: asyncpg.Pool) -> None:
    env = {"DATABASE_URL": database_url}
    older = await kept_session(pool, "older", "crm/1", "Hello one.")
    newer = await kept_session(pool, "newer", "crm/2", "Hello two.")

    code, out, err = await run("sessions", "list", AGENT, env=env)
    assert code == 0, err
    listed = json.loads(out)
    assert listed["agentId"] == AGENT
    assert [s["sessionId"] for s in listed["sessions"]] == [newer, older]  # newest first
    code, out, _ = await run("sessions", "list", AGENT, "--limit", "1", env=env)
    assert [s["key"] for s in json.loads(out)["sessions"]] == ["newer"]

    code, out, _ = await run("sessions", "show", AGENT, older, env=env)
    shown = json.loads(out)
    assert code == 0 and shown["session"]["userId"] == "crm/1"
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
    code, out, err = await run("sessions", "list", "nobody", env=env)
    assert (code, out) == (2, "") and err.startswith("error: agent_not_found: agentId")
    code, _, err = await run("sessions", "delete", AGENT, "not-a-session-id", env=env)
    assert code == 2 and "session_not_found" in err and "(field sessionId)" in err
    for limit, ok in (("100", True), ("101", False), ("0", False)):
        code, _, err = await run("sessions", "list", AGENT, "--limit", limit, env=env)
        assert (code == 0) is ok, err
        if not ok:
            assert code == 2 and "--limit" in err
