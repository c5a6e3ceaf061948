"""The agent of a catalog entry: its prompt file as instructions; it greets when it enters.

A plain livekit `Agent` like any other attached to memory: memory only adds its block to the
instructions (`callmemory`), and the greeting is the agent's own `on_enter`.
"""

from __future__ import annotations

from livekit.agents import Agent

GREETING = "Greet the caller warmly and briefly, then ask how you can help."


class Greeter(Agent):
    def __init__(self, instructions: str) -> None:
        super().__init__(instructions=instructions)

    async def on_enter(self) -> None:
        self.session.generate_reply(instructions=GREETING)
