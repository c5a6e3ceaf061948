"""The memory block in an agent's own instructions: a string or livekit's `Instructions`."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from livekit.agents import Agent
from livekit.agents.beta import Instructions

from lifecycle.context import EMPTY, memory_context
from lifecycle.instructions import AgentInstructions, give_memory, with_memory_placed
from memory.contract._models import Fact, Recall

SINCE = datetime(2026, 10, 26, tzinfo=UTC)
RECALL = Recall((Fact("f-1", "Has a dog named Rex.", SINCE, SINCE),), ())
NOTHING = Recall((), ())
BLOCK = memory_context(RECALL)
assert BLOCK is not None


@pytest.mark.parametrize(
    ("given", "recall", "expected"),
    [
        ("Be kind.", RECALL, f"Be kind.\n\n{BLOCK}"),  # no placeholder: appended
        ("Be kind.", None, "Be kind."),  # read off: nothing appended
        ("Be kind.", NOTHING, "Be kind."),  # nothing recalled: nothing appended
        ("A\n{{MEMORY}}\nB", RECALL, f"A\n{BLOCK}\nB"),  # placed where the text says
        ("A\n{{ MEMORY }}\nB", None, f"A\n{EMPTY}\nB"),  # an explicit empty marker
        (
            Instructions("Be kind."),
            RECALL,
            Instructions("Be kind.", dynamic=BLOCK),  # appended as the per-call part
        ),
        (
            Instructions("Be kind.", dynamic="Caller is on a train."),
            RECALL,
            Instructions("Be kind.", dynamic=f"Caller is on a train.\n\n{BLOCK}"),
        ),
        (Instructions("Be kind.", audio="Short."), None, Instructions("Be kind.", audio="Short.")),
        (
            Instructions("A {{MEMORY}}", audio="Say less.", text="B {{MEMORY}}", dynamic="D"),
            RECALL,
            Instructions(f"A {BLOCK}", audio="Say less.", text=f"B {BLOCK}", dynamic="D"),
        ),
        (
            Instructions("Be kind.", audio="{{MEMORY}}"),
            NOTHING,
            Instructions("Be kind.", audio=EMPTY),
        ),
    ],
)
def test_the_block_goes_where_the_instructions_say_else_it_is_appended(
    given: AgentInstructions, recall: Recall | None, expected: AgentInstructions
) -> None:
    placed = with_memory_placed(given, recall)
    assert placed == expected and type(placed) is type(expected)


def test_the_agents_own_instructions_object_is_not_changed() -> None:
    given = Instructions("A {{MEMORY}}", dynamic="D")
    with_memory_placed(given, RECALL)
    assert given == Instructions("A {{MEMORY}}", dynamic="D")


async def test_before_start_the_agent_gets_the_block_and_keeps_its_tools() -> None:
    class Own(Agent):
        def __init__(self) -> None:
            super().__init__(instructions="Front desk.\n{{MEMORY}}")

    agent = Own()
    tools = list(agent.tools)
    await give_memory(agent, RECALL)
    assert agent.instructions == f"Front desk.\n{BLOCK}"
    assert agent.tools == tools
