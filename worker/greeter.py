"""The agent of a definition: its instructions and its own tools; it greets when it enters.

A plain livekit `Agent` like any other attached to memory: memory only adds its block to the
instructions (`callmemory`), and the greeting is the agent's own `on_enter`.
"""

from __future__ import annotations

from collections.abc import Sequence

from livekit.agents import Agent, llm

GREETING = "Greet the caller warmly and briefly, then ask how you can help."


class Greeter(Agent):
    def __init__(self, instructions: str, tools: Sequence[llm.Tool | llm.Toolset] = ()) -> None:
        super().__init__(instructions=instructions, tools=list(tools))

    async def on_enter(self) -> None:
        self.session.generate_reply(instructions=GREETING)
