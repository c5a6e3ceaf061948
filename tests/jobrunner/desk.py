"""The developer's own agent of the turn-mode tests: `{{MEMORY}}` in its instructions, and a
greeting it generates itself on entering."""

from __future__ import annotations

from livekit.agents import Agent


class Desk(Agent):
    def __init__(self) -> None:
        super().__init__(instructions="You answer the phone.\n\n{{MEMORY}}")

    async def on_enter(self) -> None:
        self.session.generate_reply(instructions="Welcome the caller.")
