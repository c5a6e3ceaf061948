"""What a held turn keeps: repeated pauses in one turn keep the first settings snapshot, the
stored identity wins over whatever a deciding request or another turn names, a turn without a
session key cannot pause, and a continuation that fails keeps the decision and frees the
session."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import asyncpg

from testkit.model_server import ModelServer
from tests.held.conftest import ADMIN_KEY, CHAT_KEY, CONVERSATION_MODEL, bearer, ran
from tests.held.scripts import CUSTOMER, HEADERS, REFUND, call, calls, decide, session_turns, turn
from tests.waiting import eventually
from tests.web_clients import Client


def offered(request: dict[str, Any]) -> list[str]:
    return sorted(t["function"]["name"] for t in request.get("tools", []))


def conversation(model_server: ModelServer) -> list[dict[str, Any]]:
    return [r for r in model_server.requests if r.get("model") == CONVERSATION_MODEL]


async def set_read(client: Client, read: bool) -> None:
    response = await client.put(
        "/api/memory/settings/refunds", json={"read": read}, headers=bearer(ADMIN_KEY)
    )
    assert response.status == 200, await response.text()


async def test_repeated_pauses_keep_the_first_snapshot(
    client: Client, model_server: ModelServer, ran_file: Path
) -> None:
    calls(
        model_server,
        call("lookup_order", {"order_id": "A-1"}, "call_lookup"),
        call("issue_refund", REFUND, "call_refund"),
        call("cancel_order", {"order_id": "A-1"}, "call_cancel"),
    )
    _, parked = await turn(client, "Refund and cancel A-1", CHAT_KEY)
    first = parked["stackbone"]["decision"]
    assert first["tool"] == "issue_refund"
    assert [r["tool"] for r in ran(ran_file)] == ["lookup_order"]  # the earlier call ran
    assert "memory_read" in offered(conversation(model_server)[0])

    await set_read(client, False)  # the agent's settings change while the turn waits
    status, body = await decide(client, first["id"], {"decision": "approve"})
    assert status == 200, body
    second = body["held"]  # the same step's later held call parks the turn again
    assert second["tool"] == "cancel_order" and second["id"] != first["id"]
    assert [r["tool"] for r in ran(ran_file)] == ["lookup_order", "issue_refund"]

    await set_read(client, True)
    await set_read(client, False)
    model_server.answer_text("Refunded and cancelled.")
    status, body = await decide(client, second["id"], {"decision": "approve"})
    assert status == 200 and body["reply"] == "Refunded and cancelled.", body
    assert "memory_read" in offered(conversation(model_server)[-1])  # the first snapshot's
    assert [d["name"] for d in body["run"]["toolCalls"]] == [
        "lookup_order",
        "issue_refund",
        "cancel_order",
    ]

    model_server.answer_text("Hello again.")
    assert (await turn(client, "Hi", CHAT_KEY))[0] == 200
    assert "memory_read" not in offered(conversation(model_server)[-1])  # now the new ones
    [kept, _] = await session_turns(client)
    assert [d["decision"] for d in kept["run"]["toolCalls"]] == [None, "approve", "approve"]


async def test_the_stored_identity_wins(
    client: Client, model_server: ModelServer, ran_file: Path
) -> None:
    calls(model_server, call("issue_refund", REFUND, "call_refund"))
    _, parked = await turn(client, "Refund A-1", CHAT_KEY)
    pending = parked["stackbone"]["decision"]

    intruder = HEADERS | {"x-stackbone-identities": json.dumps({"customerId": "mallory"})}
    model_server.answer_text("Hello Mallory.")
    status, _ = await turn(client, "Hi", CHAT_KEY, intruder)
    assert status == 200  # another customer's key is another session
    status, body = await turn(client, "Hi", CHAT_KEY)
    assert status == 409 and body["error"]["code"] == "decision_pending"

    model_server.answer_text("Refunded.")
    response = await client.post(
        f"/api/chat/decisions/{pending['id']}?agent=other-shop",
        json={"decision": "approve"},
        headers=bearer(ADMIN_KEY)
        | {k: v for k, v in intruder.items() if k != "x-stackbone-session"},
    )
    assert response.status == 200, await response.text()
    [done] = ran(ran_file)
    assert done["user"] == CUSTOMER and done["agent"] == "refunds"


async def test_a_turn_without_a_session_cannot_pause(
    client: Client, model_server: ModelServer, ran_file: Path, pool: asyncpg.Pool
) -> None:
    calls(
        model_server,
        call("lookup_order", {"order_id": "A-1"}, "call_lookup"),
        call("issue_refund", REFUND, "call_refund"),
    )
    no_session = {k: v for k, v in HEADERS.items() if k != "x-stackbone-session"}
    status, body = await turn(client, "Refund A-1", CHAT_KEY, no_session)
    assert status == 400, body
    error = body["error"]
    assert error["code"] == "session_required" and error["field"] == "x-stackbone-session"
    assert "issue_refund" in error["message"] and "session" in error["message"]
    assert ran(ran_file) == []  # nothing of the step ran
    assert await pool.fetchval("select count(*) from stackbone_platform.chat_decisions") == 0


async def test_a_failed_continuation_keeps_the_decision_and_frees_the_session(
    client: Client, model_server: ModelServer, ran_file: Path
) -> None:
    calls(model_server, call("issue_refund", REFUND, "call_refund"))
    _, parked = await turn(client, "Refund A-1", CHAT_KEY)
    pending = parked["stackbone"]["decision"]
    model_server.fail(500)  # the model fails after the refund ran
    status, body = await decide(client, pending["id"], {"decision": "approve"})
    assert status == 502 and body["error"]["code"] == "chat_model_failed", body
    assert len(ran(ran_file)) == 1  # the held tool ran; it is not run again
    shown = await (
        await client.get(f"/api/chat/decisions/{pending['id']}", headers=bearer(ADMIN_KEY))
    ).json()
    assert shown["status"] == "approved" and shown["failure"] == "chat_model_failed"
    status, body = await decide(client, pending["id"], {"decision": "approve"})
    assert status == 409 and body["error"]["code"] == "decision_taken"

    model_server.answer_text("How can I help?")
    status, _ = await turn(client, "Hello?", CHAT_KEY)
    assert status == 200  # the session is free again
    await _refund_kept_before(client, model_server, "Hello?")


async def _refund_kept_before(client: Client, model_server: ModelServer, text: str) -> None:
    """The failed continuation is kept as a cut turn (the refund that ran, no answer) before
    the next turn, and the next turn's model request holds the refund and its result."""
    cut, kept = await session_turns(client)
    assert (cut["userMessage"], cut["reply"]) == ("Refund A-1", "")
    assert [(r["name"], r["decision"]) for r in cut["run"]["toolCalls"]] == [
        ("issue_refund", "approve")
    ]
    assert kept["userMessage"] == text
    sent = model_server.requests[-1]["messages"]
    results = [m["content"] for m in sent if m["role"] == "tool"]
    assert results == ["refunded 500 on A-1"], sent


async def test_a_client_gone_mid_continuation_keeps_the_decision_and_frees_the_session(
    client: Client, model_server: ModelServer, ran_file: Path
) -> None:
    calls(model_server, call("issue_refund", REFUND, "call_refund"))
    _, parked = await turn(client, "Refund A-1", CHAT_KEY)
    pending = parked["stackbone"]["decision"]
    # 1 s of answer after the first words: the client's departure reaches the model first
    model_server.answer_text("one two three four five six seven eight", pace=0.15)
    response = await client.post(
        f"/api/chat/decisions/{pending['id']}",
        json={"decision": "approve", "stream": True},
        headers=bearer(ADMIN_KEY),
    )
    assert (await response.content.readuntil(b"\n\n")).startswith(b"event: tool_result")
    assert (await response.content.readuntil(b"\n\n")).startswith(b"event: delta")
    response.close()  # the client goes away mid-answer

    async def failure() -> str | None:
        answer = await client.get(f"/api/chat/decisions/{pending['id']}", headers=bearer(ADMIN_KEY))
        found: str | None = (await answer.json())["failure"]
        return found

    assert await eventually(failure, "the failure noted") == "client_closed_request"
    assert len(ran(ran_file)) == 1
    model_server.answer_text("Hello again.")
    status, _ = await turn(client, "Hello?", CHAT_KEY)
    assert status == 200  # the session is free
    await _refund_kept_before(client, model_server, "Hello?")
