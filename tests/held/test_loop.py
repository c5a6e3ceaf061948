"""The tool loop itself (`chat.run_turn`) over the local model server: a held call parks the
turn with the step's later calls kept, a resume goes on from there (and parks again), a
client's tool ends the turn unrun, the observer hears every call and result, and a turn that
cannot wait refuses a held call before any call of its step runs. No database."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from chat import (
    ChatConfig,
    ConversationModel,
    Decision,
    DecisionKind,
    HeldNeedsSession,
    Resume,
    Tool,
    ToolContext,
    TurnInput,
    run_turn,
)
from testkit.model_server import ModelServer
from tests.held.scripts import call, calls

RAN: list[str] = []


def tool(name: str, kind: Any = "agent") -> Tool:
    async def run(_: ToolContext, raw: str) -> str:
        RAN.append(name)
        return f"{name} done"

    return Tool(name, name, {"type": "object", "properties": {}}, run, kind=kind)


TOOLS = (tool("lookup"), tool("refund"), tool("cancel"), tool("ask_user", "client"))
HELD: dict[str, frozenset[DecisionKind]] = {
    "refund": frozenset({"approve", "reject"}),
    "cancel": frozenset({"approve"}),
}


class Heard:
    def __init__(self) -> None:
        self.events: list[tuple[str, str]] = []

    async def tool_call(self, call_id: str, name: str, arguments: str) -> None:
        self.events.append(("call", call_id))

    async def tool_result(
        self, call_id: str, content: str, duration_ms: float, error: str | None
    ) -> None:
        assert duration_ms >= 0
        self.events.append(("result", call_id))


@pytest.fixture(name="model")
async def _model(model_server: ModelServer) -> AsyncIterator[ConversationModel]:
    RAN.clear()
    model = ConversationModel(ChatConfig(base_url=model_server.url, api_key="k", model="m"))
    yield model
    await model.aclose()


def turn(can_park: bool = True) -> TurnInput:
    new = [{"role": "user", "content": "go"}]
    return TurnInput("a", "i", [], new, ToolContext("a", "u"), TOOLS, {}, HELD, can_park)


async def test_parking_keeps_the_steps_later_calls_and_resumes(
    model: ConversationModel, model_server: ModelServer
) -> None:
    calls(
        model_server,
        call("lookup", {}, "l1"),
        call("refund", {}, "r1"),
        call("cancel", {}, "c1"),
    )
    heard = Heard()
    first = await run_turn(model, turn(), 4, None, heard)
    assert first.parked is not None and first.parked.call.id == "r1"
    assert [c.id for c in first.parked.rest] == ["c1"]
    assert RAN == ["lookup"] and first.finish_reason == "tool_calls"
    assert heard.events == [("call", "l1"), ("call", "r1"), ("call", "c1"), ("result", "l1")]

    second = await run_turn(
        model, turn(), 4, None, heard, resume=Resume(first, Decision("reject", message="no"))
    )
    assert second.parked is not None and second.parked.call.id == "c1"  # parks again
    assert RAN == ["lookup"]
    assert second.run[-1].error == "rejected" and second.run[-1].decision == "reject"

    model_server.answer_text("Done.")
    third = await run_turn(
        model, turn(), 4, None, heard, resume=Resume(second, Decision("approve"))
    )
    assert third.parked is None and third.reply == "Done." and RAN == ["lookup", "cancel"]
    assert [(r.id, r.decision) for r in third.run] == [
        ("l1", None),
        ("r1", "reject"),
        ("c1", "approve"),
    ]
    assert third.steps == 2
    sent = model_server.requests[-1]["messages"]
    answers = {m["tool_call_id"]: m["content"] for m in sent if m["role"] == "tool"}
    assert set(answers) == {"l1", "r1", "c1"}  # every call of the step answered, in the thread
    assert json.loads(answers["r1"])["error"] == "rejected"


async def test_a_clients_tool_ends_the_turn_unrun(
    model: ConversationModel, model_server: ModelServer
) -> None:
    calls(model_server, call("ask_user", {"q": "sure?"}, "u1"), call("lookup", {}, "l1"))
    heard = Heard()
    result = await run_turn(model, turn(), 4, None, heard)
    assert [c.id for c in result.client_calls] == ["u1"] and result.finish_reason == "tool_calls"
    assert RAN == ["lookup"] and result.parked is None
    assert heard.events == [("call", "u1"), ("call", "l1"), ("result", "l1")]
    assert [m["role"] for m in result.added] == ["assistant", "tool"]
    assert result.run[0].result is None  # the client answers it
    assert len(model_server.requests) == 1  # the model is not asked again


async def test_a_turn_that_cannot_wait_refuses_a_held_call_before_its_step_runs(
    model: ConversationModel, model_server: ModelServer
) -> None:
    calls(model_server, call("lookup", {}, "l1"), call("refund", {}, "r1"))
    with pytest.raises(HeldNeedsSession) as refused:
        await run_turn(model, turn(can_park=False), 4)
    assert refused.value.field == "x-stackbone-session" and "refund" in refused.value.message
    assert RAN == []
