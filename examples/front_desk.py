"""A front desk agent of its own (tool, greeting, instructions) with caller memory attached.

The same agent without memory is `front_desk_without_memory.py`; they differ in four lines.
"""

from collections.abc import Callable

from livekit.agents import (
    Agent,
    AgentServer,
    AgentSession,
    JobContext,
    cli,
    function_tool,
)
from livekit.plugins import openai

from callmemory import PHONE_CALLERS, CallerMemory, measurable


class FrontDesk(Agent):
    def __init__(self) -> None:
        super().__init__(instructions="You answer the phone at Oak Street Dental.")

    async def on_enter(self) -> None:
        self.session.generate_reply(
            instructions="Welcome the caller to Oak Street Dental.",
        )

    @function_tool
    async def opening_hours(self, day: str) -> str:
        """When the clinic is open on a given day of the week."""
        return f"On {day} the clinic is open from 9:00 to 17:00."


def voice() -> AgentSession[None]:  # the models; tests pass `sessions=` fakes
    return AgentSession(
        stt=openai.STT(),
        llm=openai.LLM(),
        tts=measurable(openai.TTS()),
    )


async def entrypoint(
    ctx: JobContext,
    sessions: Callable[[], AgentSession[None]] = voice,
) -> None:
    session, agent = sessions(), FrontDesk()
    await memory.start(ctx, session, agent=agent, room=ctx.room)


server = AgentServer()
memory = CallerMemory.from_env("front-desk", defaults=PHONE_CALLERS, server=server)
server.rtc_session(entrypoint, agent_name="front-desk")
if __name__ == "__main__":
    cli.run_app(server)
