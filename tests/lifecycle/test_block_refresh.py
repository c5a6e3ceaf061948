"""Turn mode's refreshed memory block: a pass's applied ops folded into the recall (a table),
and the agent's instructions placed again from its own, by the placement rules."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
import structlog
from livekit.agents import Agent
from livekit.agents.llm.chat_context import Instructions

from lifecycle.context import EMPTY
from lifecycle.instructions import with_memory_placed
from lifecycle.memory_block import MemoryBlock, after_pass
from memory.contract._models import AppliedOp, CallRecord, Fact, Recall

SINCE = datetime(2026, 10, 26, 9, 0, tzinfo=UTC)
NOW = datetime(2026, 12, 3, 9, 30, tzinfo=UTC)
CALL = CallRecord("c1", SINCE, 120.0, "caller_hung_up", None, "Booked a cleaning.", SINCE)
HELD = Recall(
    (Fact("a", "Lives in Miraflores.", SINCE, SINCE), Fact("b", "Works Saturdays.", SINCE, SINCE)),
    (CALL,),
)


def add(fact_id: str, text: str) -> AppliedOp:
    return AppliedOp("add", fact_id, f"v-{fact_id}", None, NOW, None, text)


def update(fact_id: str, text: str) -> AppliedOp:
    return AppliedOp("update", fact_id, f"v2-{fact_id}", f"v-{fact_id}", NOW, None, text)


def delete(fact_id: str) -> AppliedOp:
    return AppliedOp("delete", fact_id, f"v-{fact_id}", None, SINCE, NOW)


@pytest.mark.parametrize(
    ("ops", "facts"),
    [
        (
            [],
            [("a", "Lives in Miraflores.", SINCE, SINCE), ("b", "Works Saturdays.", SINCE, SINCE)],
        ),
        (
            [add("c", "Prefers WhatsApp.")],
            [
                ("a", "Lives in Miraflores.", SINCE, SINCE),
                ("b", "Works Saturdays.", SINCE, SINCE),
                ("c", "Prefers WhatsApp.", NOW, NOW),
            ],
        ),
        (  # an update keeps the fact's id, place and creation date
            [update("a", "Lives in San Isidro.")],
            [("a", "Lives in San Isidro.", SINCE, NOW), ("b", "Works Saturdays.", SINCE, SINCE)],
        ),
        ([delete("b")], [("a", "Lives in Miraflores.", SINCE, SINCE)]),
        (  # one pass: deletes, updates, adds (the order a write reports them in)
            [delete("b"), update("a", "Lives in San Isidro."), add("c", "Prefers WhatsApp.")],
            [("a", "Lives in San Isidro.", SINCE, NOW), ("c", "Prefers WhatsApp.", NOW, NOW)],
        ),
        (  # a fact another writer added since the recall: shown from its new version on
            [update("x", "Has a cat.")],
            [
                ("a", "Lives in Miraflores.", SINCE, SINCE),
                ("b", "Works Saturdays.", SINCE, SINCE),
                ("x", "Has a cat.", NOW, NOW),
            ],
        ),
        (  # deleting what the recall never held changes nothing
            [delete("x")],
            [("a", "Lives in Miraflores.", SINCE, SINCE), ("b", "Works Saturdays.", SINCE, SINCE)],
        ),
        ([delete("a"), delete("b")], []),
    ],
)
def test_applied_ops_fold_into_the_recall(
    ops: list[AppliedOp], facts: list[tuple[str, str, datetime, datetime]]
) -> None:
    after = after_pass(HELD, ops)
    assert [(f.id, f.content, f.created_at, f.updated_at) for f in after.facts] == facts
    assert after.calls == (CALL,)  # the recent calls stay as recalled
    assert HELD.facts[0].content == "Lives in Miraflores."  # the input is not changed


async def test_the_placeholder_is_filled_again_from_the_agents_own_text() -> None:
    own = "You answer the phone.\n\n{{MEMORY}}\n\nBe brief."
    agent = Agent(instructions=with_memory_placed(own, HELD))
    block = MemoryBlock(agent, own, HELD)
    ops = [delete("b"), update("a", "Lives in San Isidro.")]
    await block.refresh(ops)
    shown = agent.instructions
    assert isinstance(shown, str)
    assert shown == with_memory_placed(own, after_pass(HELD, ops))
    assert "Lives in San Isidro." in shown and "Works Saturdays." not in shown
    assert "Miraflores" not in shown and "Booked a cleaning." in shown
    assert shown.startswith("You answer the phone.") and shown.endswith("Be brief.")
    await block.refresh([delete("a")])  # the next pass folds into the refreshed recall
    assert "Lives in San Isidro." not in str(agent.instructions)
    assert str(agent.instructions).count("{{MEMORY}}") == 0
    assert [f.id for f in block.recall.facts] == []


async def test_an_appended_block_lands_in_dynamic_and_the_rest_stays() -> None:
    own = Instructions("Answer the phone.", audio="Speak slowly.", dynamic="Today: Thursday.")
    agent = Agent(instructions=with_memory_placed(own, HELD))
    await MemoryBlock(agent, own, HELD).refresh([add("c", "Prefers WhatsApp.")])
    shown = agent.instructions
    assert isinstance(shown, Instructions)
    assert (shown.common, shown.audio) == ("Answer the phone.", "Speak slowly.")
    assert shown.dynamic is not None and shown.dynamic.startswith("Today: Thursday.\n\n")
    assert shown.dynamic.count("Prefers WhatsApp.") == 1  # placed once, not appended again
    assert shown.dynamic.count("Works Saturdays.") == 1


async def test_a_pass_deleting_every_fact_leaves_the_empty_marker_or_only_the_calls() -> None:
    own = "Hi.\n\n{{MEMORY}}"
    facts_only = Recall(HELD.facts, ())
    agent = Agent(instructions=with_memory_placed(own, facts_only))
    await MemoryBlock(agent, own, facts_only).refresh([delete("a"), delete("b")])
    assert agent.instructions == f"Hi.\n\n{EMPTY}"


async def test_no_change_and_instructions_the_agent_set_itself_are_left_alone() -> None:
    own = "Hi.\n\n{{MEMORY}}"
    agent = Agent(instructions=with_memory_placed(own, HELD))
    block = MemoryBlock(agent, own, HELD)
    before = agent.instructions
    await block.refresh([])  # an empty pass
    assert agent.instructions is before
    await agent.update_instructions("The agent's own new instructions.")
    with structlog.testing.capture_logs() as logs:
        await block.refresh([add("c", "Prefers WhatsApp.")])
        await block.refresh([add("d", "Has a dog.")])
    assert agent.instructions == "The agent's own new instructions."
    assert [e["event"] for e in logs] == ["memory.block_left"]  # said once
