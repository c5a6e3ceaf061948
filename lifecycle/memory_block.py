"""Turn mode: the memory block in the agent's instructions, refreshed after every saved pass.

The block is seeded at room open from the recall (`lifecycle.instructions.give_memory`). After a
pass that changed facts, the new recall is the old one with the pass's ops as applied folded in
(`after_pass`, pure): an add appears, an update shows its new text (the fact keeps its id and
creation date), a delete is gone; the recent calls stay as recalled. The applied ops carry each
fact's final id, text and validity, so no read is added to the call: the refresh is one
`update_instructions` on the pass's own task, after the write, never on a reply's path.

The instructions are placed again from the agent's own, as they were before memory was given,
with `lifecycle.instructions`' rules (`{{MEMORY}}`, appended block or `Instructions.dynamic`).
If the agent's code changed its instructions since memory last set them, they are left alone
(memory would otherwise overwrite the agent's change). A call with no recall (read off, or the
recall missed the pre-greeting deadline) gets no refresh: the facts held were never read, and a
block of this call's changes alone would pass for the whole memory. A refresh never raises.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import structlog
from livekit.agents import Agent

from lifecycle.instructions import AgentInstructions, with_memory_placed
from memory.contract import AppliedOp, Fact, Recall

log = structlog.get_logger(__name__)


def after_pass(recall: Recall, applied: Sequence[AppliedOp]) -> Recall:
    """The recall as it stands once `applied` (one pass's ops as applied) took effect.

    Facts keep their order; added ones come last. An update of a fact the recall does not hold
    (another writer added it since) is shown as new from its validity start.
    """
    facts = {fact.id: fact for fact in recall.facts}
    for op in applied:
        held = facts.get(op.fact_id)
        if op.op == "delete":
            facts.pop(op.fact_id, None)
        elif held is not None and op.text is not None:
            facts[op.fact_id] = replace(held, content=op.text, updated_at=op.valid_from)
        elif op.text is not None:
            facts[op.fact_id] = Fact(op.fact_id, op.text, op.valid_from, op.valid_from)
    return Recall(tuple(facts.values()), recall.calls)


class MemoryBlock:
    """The block one agent shows: what memory placed last, and the recall it placed."""

    def __init__(self, agent: Agent, own: AgentInstructions, recall: Recall) -> None:
        self._agent = agent
        self._own = own  # the agent's instructions before memory was given
        self._recall = recall
        self._shown = agent.instructions  # what `give_memory` set
        self._left = False

    @property
    def recall(self) -> Recall:
        return self._recall

    async def refresh(self, applied: Sequence[AppliedOp]) -> None:
        """Show the facts as `applied` left them; never raises into the call."""
        if not applied or self._left:
            return
        if self._agent.instructions is not self._shown:
            self._left = True  # the agent's code set its own: memory stops refreshing them
            log.info("memory.block_left", reason="instructions_changed")
            return
        recall = after_pass(self._recall, applied)
        placed = with_memory_placed(self._own, recall)
        try:
            await self._agent.update_instructions(placed)  # type: ignore[arg-type]
        except Exception as error:  # a session that is going away, a realtime model refusing
            log.warning("memory.block_not_refreshed", error_type=type(error).__name__)
            return
        self._recall, self._shown = recall, placed
        log.info("memory.block_refreshed", facts=len(recall.facts), ops=len(applied))
