"""Deciding a parked call through the decision routes: approve, edit (checked by the tool's own
rules), reject (the model reads the message), the kinds a tool allows, racing decisions (one
winner), replays, unknown ids, keys that do not reach the agent, and the body's limits."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from chat.held import MAX_ARGUMENTS_CHARS, MAX_MESSAGE_CHARS
from testkit.model_server import ModelServer
from tests.held.conftest import CHAT_KEY, DECIDER_KEY, OTHER_KEY, bearer, ran
from tests.held.scripts import CUSTOMER, HEADERS, REFUND, call, calls, decide, refund, turn
from tests.web_clients import Client


async def park(client: Client, model_server: ModelServer) -> dict[str, Any]:
    """A turn parked on `issue_refund(REFUND)`: its pending decision as the wire shows it."""
    refund(model_server)
    status, body = await turn(client, "Refund A-1", CHAT_KEY)
    assert status == 200, body
    assert body["choices"][0]["finish_reason"] == "tool_calls"
    pending: dict[str, Any] = body["stackbone"]["decision"]
    return pending


def last_tool_message(model_server: ModelServer) -> Any:
    tools = [m for m in model_server.requests[-1]["messages"] if m["role"] == "tool"]
    return json.loads(tools[-1]["content"]) if tools[-1]["content"].startswith("{") else tools[-1]


async def status_of(client: Client, decision_id: str) -> dict[str, Any]:
    response = await client.get(f"/api/chat/decisions/{decision_id}", headers=bearer(DECIDER_KEY))
    assert response.status == 200
    body: dict[str, Any] = await response.json()
    return body


async def test_an_edit_runs_the_persons_arguments(
    client: Client, model_server: ModelServer, ran_file: Path
) -> None:
    pending = await park(client, model_server)
    model_server.answer_text("Refunded 3 euros.")
    edited = {"order_id": "A-1", "amount": 300}
    status, body = await decide(client, pending["id"], {"decision": "edit", "arguments": edited})
    assert status == 200, body
    assert body["status"] == "edited" and body["toolResult"]["result"] == "refunded 300 on A-1"
    assert [r["arguments"] for r in ran(ran_file)] == [edited]
    [assistant] = [m for m in model_server.requests[-1]["messages"] if m.get("tool_calls")]
    assert json.loads(assistant["tool_calls"][0]["function"]["arguments"]) == edited
    shown = await status_of(client, pending["id"])
    assert shown["status"] == "edited" and shown["decision"]["arguments"] == edited
    assert json.loads(shown["arguments"]) == REFUND  # what the model wrote stays on the row


async def test_a_decision_names_its_customer_and_the_message_behind_it(
    client: Client, model_server: ModelServer
) -> None:
    """Listed or read alone, a held call says whom it acts for (the stored identities, the
    customer under the agent's key) and which message of theirs led to it."""
    pending = await park(client, model_server)
    listed = await client.get("/api/chat/decisions?status=pending", headers=bearer(DECIDER_KEY))
    [item] = (await listed.json())["decisions"]
    shown = await status_of(client, pending["id"])
    for answer in (item, shown):
        assert answer["identities"] == {"customerId": CUSTOMER}
        assert answer["userId"] == CUSTOMER and answer["userMessage"] == "Refund A-1"


async def test_edited_arguments_that_break_the_tools_rules_are_refused(
    client: Client, model_server: ModelServer, ran_file: Path
) -> None:
    pending = await park(client, model_server)
    for bad in ({"order_id": "A-1"}, {"order_id": "A-1", "amount": "lots"}):
        status, body = await decide(client, pending["id"], {"decision": "edit", "arguments": bad})
        assert status == 400 and body["error"]["code"] == "invalid_decision", body
        assert body["error"]["field"] == "arguments"
        assert "amount" in body["error"]["message"]
    status, body = await decide(client, pending["id"], {"decision": "edit"})
    assert status == 400 and body["error"]["field"] == "arguments"
    assert (await status_of(client, pending["id"]))["status"] == "pending"  # nothing taken
    assert ran(ran_file) == []


async def test_a_rejection_is_the_result_the_model_reads(
    client: Client, model_server: ModelServer, ran_file: Path
) -> None:
    pending = await park(client, model_server)
    model_server.answer_text("I cannot refund that.")
    body_in = {"decision": "reject", "message": "Refunds need a receipt."}
    status, body = await decide(client, pending["id"], body_in)
    assert status == 200, body
    assert body["status"] == "rejected" and body["reply"] == "I cannot refund that."
    assert body["toolResult"]["error"] == "rejected"
    assert last_tool_message(model_server) == {
        "error": "rejected",
        "message": "Refunds need a receipt.",
    }
    assert ran(ran_file) == []


async def test_a_tool_allows_only_its_declared_decisions(
    client: Client, model_server: ModelServer
) -> None:
    calls(model_server, call("cancel_order", {"order_id": "A-1"}, "call_cancel"))
    _, parked = await turn(client, "Cancel A-1", CHAT_KEY)
    pending = parked["stackbone"]["decision"]
    assert pending["allowed"] == ["approve", "reject"]
    edit = {"decision": "edit", "arguments": {"order_id": "A-2"}}
    status, body = await decide(client, pending["id"], edit)
    assert status == 400 and body["error"]["code"] == "invalid_decision"
    assert body["error"]["field"] == "decision" and "approve, reject" in body["error"]["message"]


async def test_two_decisions_at_once_have_one_winner(
    client: Client, model_server: ModelServer, ran_file: Path
) -> None:
    pending = await park(client, model_server)
    model_server.answer_text("Refunded.")
    model_server.answer_text("Refunded (should never be asked).")
    answers = await asyncio.gather(
        decide(client, pending["id"], {"decision": "approve"}),
        decide(client, pending["id"], {"decision": "reject", "message": "no"}),
    )
    statuses = sorted(status for status, _ in answers)
    assert statuses == [200, 409], answers
    [(_, lost)] = [(s, b) for s, b in answers if s == 409]
    assert lost["error"]["code"] == "decision_taken"
    [(_, won)] = [(s, b) for s, b in answers if s == 200]
    assert len(ran(ran_file)) == (1 if won["status"] == "approved" else 0)  # once, or never
    status, replay = await decide(client, pending["id"], {"decision": "approve"})
    assert status == 409 and replay["error"]["code"] == "decision_taken"


async def test_unknown_or_unreachable_decisions_are_not_found(
    client: Client, model_server: ModelServer
) -> None:
    pending = await park(client, model_server)
    for ident in ("00000000-0000-4000-8000-000000000000", "not-a-uuid"):
        status, body = await decide(client, ident, {"decision": "approve"})
        assert status == 404 and body["error"]["code"] == "decision_not_found"
    status, body = await decide(client, pending["id"], {"decision": "approve"}, key=OTHER_KEY)
    assert status == 404 and body["error"]["code"] == "decision_not_found"
    response = await client.post(
        f"/api/chat/decisions/{pending['id']}",
        json={"decision": "approve"},
        headers=bearer(CHAT_KEY),
    )
    assert response.status == 403  # the chat scope does not decide
    refund(model_server)
    chat = {"model": "other-shop", "messages": [{"role": "user", "content": "Refund"}]}
    response = await client.post(
        "/v1/chat/completions", json=chat, headers=bearer(OTHER_KEY) | HEADERS
    )
    theirs = (await response.json())["stackbone"]["decision"]["id"]
    listed = await client.get("/api/chat/decisions?status=pending", headers=bearer(OTHER_KEY))
    assert [d["id"] for d in (await listed.json())["decisions"]] == [theirs]  # its agent's only
    listed = await client.get("/api/chat/decisions?status=pending", headers=bearer(DECIDER_KEY))
    assert [d["id"] for d in (await listed.json())["decisions"]] == [theirs, pending["id"]]
    one = await client.get("/api/chat/decisions?agent=refunds", headers=bearer(DECIDER_KEY))
    assert [d["agentId"] for d in (await one.json())["decisions"]] == ["refunds"]
    hidden = await client.get("/api/chat/decisions?agent=refunds", headers=bearer(OTHER_KEY))
    assert hidden.status == 404
    bad = await client.get("/api/chat/decisions?status=maybe", headers=bearer(DECIDER_KEY))
    assert bad.status == 400 and (await bad.json())["error"]["field"] == "status"


@pytest.mark.parametrize("past", [False, True])
async def test_the_message_limit(client: Client, model_server: ModelServer, past: bool) -> None:
    pending = await park(client, model_server)
    model_server.answer_text("Understood.")
    message = "n" * (MAX_MESSAGE_CHARS + past)
    status, body = await decide(client, pending["id"], {"decision": "reject", "message": message})
    if past:
        assert status == 400 and body["error"]["field"] == "message", body
        assert str(MAX_MESSAGE_CHARS) in body["error"]["message"]
    else:
        assert status == 200, body
        assert last_tool_message(model_server)["message"] == message


@pytest.mark.parametrize("past", [False, True])
async def test_the_edited_arguments_limit(
    client: Client, model_server: ModelServer, ran_file: Path, past: bool
) -> None:
    pending = await park(client, model_server)
    model_server.answer_text("Refunded.")
    frame = len(json.dumps({"order_id": "", "amount": 1}))
    edited = {"order_id": "x" * (MAX_ARGUMENTS_CHARS - frame + past), "amount": 1}
    assert len(json.dumps(edited)) == MAX_ARGUMENTS_CHARS + past
    status, body = await decide(client, pending["id"], {"decision": "edit", "arguments": edited})
    if past:
        assert status == 400 and body["error"]["field"] == "arguments", body
        assert str(MAX_ARGUMENTS_CHARS) in body["error"]["message"]
        assert ran(ran_file) == []
    else:
        assert status == 200, body
        assert ran(ran_file)[0]["arguments"] == edited


async def test_a_decision_body_names_its_bad_field(
    client: Client, model_server: ModelServer
) -> None:
    pending = await park(client, model_server)
    for bad, field in (
        ({"decision": "maybe"}, "decision"),
        ({}, "decision"),
        ({"decision": "approve", "message": "ok"}, "message"),
        ({"decision": "approve", "arguments": {"amount": 1}}, "arguments"),
        ({"decision": "reject", "message": ""}, "message"),
        ({"decision": "approve", "extra": 1}, "extra"),
    ):
        status, body = await decide(client, pending["id"], bad)
        assert status == 400 and body["error"]["field"] == field, (bad, body)
    assert (await status_of(client, pending["id"]))["status"] == "pending"
