"""The pure rules of held tools over plain values: which calls are held, which decisions a
declaration allows, checking a decision against a tool, what a rejection says, and a parked
turn's progress and settings snapshot kept as JSON and read back exactly."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest
from livekit.agents import function_tool

from callmemory.definition import DefinitionError, define_agent
from callmemory.function_tools import text_tool
from chat import (
    Decision,
    DecisionKind,
    InvalidDecision,
    Tool,
    ToolCall,
    ToolContext,
    allowed_kinds,
    check_decision,
    held_kinds,
)
from chat.held import MAX_ARGUMENTS_CHARS, rejection
from chat.progress import progress_json, progress_of
from chat.snapshot import settings_json, settings_of
from chat.turn_result import Parked, ToolRun, TurnResult
from memory.settings import Binding, Brief, CallSettings


@function_tool
async def issue_refund(order_id: str, amount: int) -> str:
    """Refund an order.

    Args:
        order_id: the order number
        amount: the amount in cents
    """
    return "ok"


REFUND = text_tool(issue_refund)


async def _run(_: ToolContext, raw: str) -> str:
    return raw


def test_a_list_allows_every_decision_and_a_mapping_what_it_names() -> None:
    assert allowed_kinds(None) == {"approve", "edit", "reject"}
    assert allowed_kinds(["reject", "approve"]) == {"approve", "reject"}
    for bad in (["maybe"], []):
        with pytest.raises(ValueError, match="approve, edit, reject"):
            allowed_kinds(bad)


def test_only_an_agents_own_listed_tool_is_held() -> None:
    held: dict[str, frozenset[DecisionKind]] = {"issue_refund": frozenset({"approve"})}
    assert held_kinds(held, REFUND) == frozenset({"approve"})
    assert held_kinds(held, None) is None  # an unknown tool runs (and fails) at once
    client = Tool("issue_refund", "", {}, _run, kind="client")
    memory = Tool("issue_refund", "", {}, _run, kind="memory")
    assert held_kinds(held, client) is None and held_kinds(held, memory) is None
    assert held_kinds({}, REFUND) is None


def test_define_agent_checks_interrupt_on() -> None:
    agent = define_agent(
        name="a", instructions="i", tools=[issue_refund], interrupt_on=["issue_refund"]
    )
    assert agent.interrupt_on == {"issue_refund": frozenset({"approve", "edit", "reject"})}
    hash(agent)  # a definition stays hashable (its tools are built once per definition)
    for bad, rule in (
        (["lookup"], "interrupt_on: lookup is not one of the agent's own tools"),
        ({"issue_refund": ["maybe"]}, "interrupt_on.issue_refund: each decision"),
        ("issue_refund", "interrupt_on: a list of tool names or a mapping"),
    ):
        with pytest.raises(DefinitionError, match=rule):
            define_agent(name="a", instructions="i", tools=[issue_refund], interrupt_on=bad)


def test_a_decision_is_checked_against_the_tool() -> None:
    every: tuple[DecisionKind, ...] = ("approve", "edit", "reject")
    assert check_decision(Decision("approve"), every, REFUND, "issue_refund") is None
    edited = check_decision(
        Decision("edit", {"order_id": "A", "amount": 1}), every, REFUND, "issue_refund"
    )
    assert edited is not None and json.loads(edited) == {"order_id": "A", "amount": 1}
    cases: list[tuple[Decision, tuple[Any, ...], str]] = [
        (Decision("edit", {"order_id": "A"}), every, "arguments"),
        (Decision("edit"), every, "arguments"),
        (Decision("approve", {"amount": 1}), every, "arguments"),
        (Decision("approve", message="fine"), every, "message"),
        (Decision("edit", {"order_id": "A", "amount": 1}), ("approve", "reject"), "decision"),
        (
            Decision("edit", {"order_id": "x" * MAX_ARGUMENTS_CHARS, "amount": 1}),
            every,
            "arguments",
        ),
    ]
    for decision, allowed, field in cases:
        with pytest.raises(InvalidDecision) as refused:
            check_decision(decision, allowed, REFUND, "issue_refund")
        assert refused.value.field == field, decision


def test_a_rejection_is_an_error_the_model_reads() -> None:
    assert json.loads(rejection("needs a receipt")) == {
        "error": "rejected",
        "message": "needs a receipt",
    }
    assert json.loads(rejection(None))["message"].startswith("a person rejected")


def test_a_parked_turn_reads_back_exactly() -> None:
    result = TurnResult(
        reply="Let me check.",
        added=[{"role": "assistant", "content": "\u0000 odd", "tool_calls": []}],
        prompt_tokens=12,
        completion_tokens=3,
        steps=1,
        tool_calls=["lookup_order"],
        tool_errors=["tool_failed"],
        duration_ms=4.5,
        client_calls=[ToolCall("c1", "ask_user", "{}")],
        run=[ToolRun("l1", "lookup_order", "{}", "x", "tool_failed", 1.5, None)],
        parked=Parked(
            ToolCall("r1", "issue_refund", '{"a":1}'),
            ("approve", "reject"),
            (ToolCall("c2", "cancel_order", "{}"),),
        ),
    )
    back = progress_of(json.loads(json.dumps(progress_json(result))))
    assert back == result


def test_a_settings_snapshot_reads_back_exactly() -> None:
    settings = CallSettings(
        True,
        False,
        "Keep sizes.",
        Binding("customerId", "code", datetime(2026, 1, 2, tzinfo=UTC)),
        Brief(("sizes",), ("health",)),
        "Europe/Madrid",
    )
    assert settings_of(json.loads(json.dumps(settings_json(settings)))) == settings
    bare = CallSettings(False, False, None, None)
    assert settings_of(settings_json(bare)) == bare
