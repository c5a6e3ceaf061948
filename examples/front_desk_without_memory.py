"""A front desk agent of its own (tool, greeting, instructions), without memory.

The twin of `front_desk.py`, which attaches caller memory to this same agent in four lines.
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
        tts=openai.TTS(),
    )


async def entrypoint(
    ctx: JobContext,
    sessions: Callable[[], AgentSession[None]] = voice,
) -> None:
    session, agent = sessions(), FrontDesk()
    await session.start(agent=agent, room=ctx.room)


server = AgentServer()
server.rtc_session(entrypoint, agent_name="front-desk")
if __name__ == "__main__":
    cli.run_app(server)
