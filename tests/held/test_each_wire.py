"""The held-tool rules on both chat wires, OpenAI and Anthropic, the same way: a held call parks
the turn and shows its pending decision in the wire's own shape, a new message on the session
is 409 `decision_pending` in the wire's error envelope, each decision (approve, edit, reject)
continues the turn, after which the session takes messages again; and a turn without a session
key cannot pause (400 `session_required`, nothing ran). AG-UI has its own suite (tests/agui)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import pytest

from testkit.model_server import ModelServer
from tests.held.conftest import ran
from tests.held.scripts import CUSTOMER, HEADERS, REFUND, decide, refund, wire_request
from tests.web_clients import Client

Wire = Literal["openai", "anthropic"]
WIRES: list[Wire] = ["openai", "anthropic"]
EDITED = {"order_id": "A-1", "amount": 300}
DECISIONS: dict[str, tuple[dict[str, Any], list[dict[str, Any]], str]] = {
    # the decision's body, what the tool then ran with, the decision's status
    "approve": ({"decision": "approve"}, [REFUND], "approved"),
    "edit": ({"decision": "edit", "arguments": EDITED}, [EDITED], "edited"),
    "reject": ({"decision": "reject", "message": "Needs a receipt."}, [], "rejected"),
}


async def say(
    client: Client, wire: Wire, text: str, headers: dict[str, str] = HEADERS
) -> tuple[int, Any]:
    """One turn on `wire`, as its clients send it: (status, body)."""
    path, body, key = wire_request(wire, text)
    response = await client.post(path, json=body, headers=key | headers)
    return response.status, await response.json()


def held_call(wire: Wire, body: Any) -> dict[str, Any]:
    """The held call as the wire shows it: (id, name, arguments)."""
    if wire == "openai":
        choice = body["choices"][0]
        assert choice["finish_reason"] == "tool_calls"
        [call] = choice["message"]["tool_calls"]
        return {"id": call["id"], "name": call["function"]["name"]}
    assert body["stop_reason"] == "tool_use"
    [block] = [b for b in body["content"] if b["type"] == "tool_use"]
    assert block["input"] == REFUND
    return {"id": block["id"], "name": block["name"]}


def error_of(wire: Wire, body: Any) -> dict[str, Any]:
    if wire == "anthropic":
        assert body["type"] == "error"
    error: dict[str, Any] = body["error"]
    return error


@pytest.mark.parametrize("decision", list(DECISIONS))
@pytest.mark.parametrize("wire", WIRES)
async def test_a_held_turn_parks_refuses_the_session_and_continues_on_a_decision(
    client: Client, model_server: ModelServer, ran_file: Path, wire: Wire, decision: str
) -> None:
    decided, runs, status_name = DECISIONS[decision]
    refund(model_server)
    status, parked = await say(client, wire, "Refund A-1")
    assert status == 200, parked
    assert held_call(wire, parked) == {"id": "call_refund", "name": "issue_refund"}
    pending = parked["stackbone"]["decision"]
    assert (pending["status"], pending["tool"]) == ("pending", "issue_refund")

    status, refused = await say(client, wire, "Are you there?")
    assert status == 409
    assert error_of(wire, refused)["code"] == "decision_pending"
    assert ran(ran_file) == []

    model_server.answer_text("Done as decided.")
    status, continued = await decide(client, pending["id"], decided)
    assert status == 200, continued
    assert continued["status"] == status_name and continued["reply"] == "Done as decided."
    assert [r["arguments"] for r in ran(ran_file)] == runs
    assert all(r["user"] == CUSTOMER for r in ran(ran_file))

    model_server.answer_text("Anything else?")
    status, after = await say(client, wire, "Thanks")
    assert status == 200, after  # the session takes messages again


@pytest.mark.parametrize("wire", WIRES)
async def test_without_a_session_key_a_held_call_cannot_pause(
    client: Client, model_server: ModelServer, ran_file: Path, wire: Wire
) -> None:
    refund(model_server)
    no_session = {k: v for k, v in HEADERS.items() if k != "x-stackbone-session"}
    status, body = await say(client, wire, "Refund A-1", no_session)
    assert status == 400, body
    error = error_of(wire, body)
    assert (error["code"], error["field"]) == ("session_required", "x-stackbone-session")
    assert "issue_refund" in error["message"]
    assert ran(ran_file) == []
