"""The memory block in an agent's own instructions, and nothing else of the agent changed.

An agent's instructions are a string or livekit's `Instructions` (common text, audio/text
additions, a per-call `dynamic` part). The block goes where the text says `{{MEMORY}}` (in
every part that says it, and only there); without a placeholder it is appended, to a string's
end or, for an `Instructions`, to its `dynamic` part, which livekit keeps as its own message
after the stable instructions. The rendering itself is `lifecycle.context`'s. An agent whose
prompt was published from the console gets that text in place of its own first
(`give_prompt`), for the whole call.
"""

from __future__ import annotations

from livekit.agents import Agent
from livekit.agents.llm.chat_context import Instructions

from lifecycle.context import PLACEHOLDER, appended_level, memory_context, with_memory
from memory.contract import Recall

AgentInstructions = str | Instructions
"""What `Agent(instructions=...)` takes (`Instructions` is public as `livekit.agents.beta`'s)."""


def with_memory_placed(instructions: AgentInstructions, recall: Recall | None) -> AgentInstructions:
    """The agent's instructions with the memory block placed; the input is not changed."""
    if isinstance(instructions, str):
        return with_memory(instructions, recall)
    parts = (instructions.common, instructions.audio, instructions.text)
    if any(part and PLACEHOLDER.search(part) for part in parts):
        common, audio, text = (_placed(p, recall) for p in parts)
        return Instructions(common or "", audio=audio, text=text, dynamic=instructions.dynamic)
    stable = "\n\n".join(p for p in (instructions.common, instructions.dynamic) if p)
    block = memory_context(recall, appended_level(stable)) if recall is not None else None
    if block is None:
        return instructions
    dynamic = f"{instructions.dynamic}\n\n{block}" if instructions.dynamic else block
    return Instructions(
        instructions.common, audio=instructions.audio, text=instructions.text, dynamic=dynamic
    )


def _placed(part: str | None, recall: Recall | None) -> str | None:
    """A part that says `{{MEMORY}}` gets the block there; the others stay as they are."""
    return with_memory(part, recall) if part and PLACEHOLDER.search(part) else part


def with_prompt(instructions: AgentInstructions, prompt: str) -> AgentInstructions:
    """The agent's instructions with its published prompt in place of its own text (an
    `Instructions`' common part; its audio, text and dynamic parts stay)."""
    if isinstance(instructions, str):
        return prompt
    return Instructions(
        prompt, audio=instructions.audio, text=instructions.text, dynamic=instructions.dynamic
    )


async def give_prompt(agent: Agent, prompt: str | None) -> None:
    """The call's published prompt (snapshotted at room open) as the agent's instructions,
    before `session.start` and before the memory block; None keeps the agent's own."""
    if prompt is not None:
        await agent.update_instructions(with_prompt(agent.instructions, prompt))  # type: ignore[arg-type]


async def give_memory(agent: Agent, recall: Recall | None) -> None:
    """Put the block into the agent's instructions (before `session.start`, a plain update)."""
    await agent.update_instructions(with_memory_placed(agent.instructions, recall))  # type: ignore[arg-type]
