"""A web chat agent of its own (tool, instructions) in livekit's text mode, with caller memory.

The browser writes on the room's `lk.chat` topic; no audio flows. The participant's token names
the customer in its attributes (`with_attributes({"customerId": "crm/person_42"})`). Each turn
the agent gets `memory_read` and `memory_save` next to its own tool, as the settings say.
"""

from collections.abc import Callable

from livekit.agents import Agent, AgentServer, AgentSession, JobContext, cli, function_tool
from livekit.agents.voice.room_io import RoomOptions
from livekit.plugins import openai

from callmemory import CallerMemory, CodeDefaults


class WebChat(Agent):
    def __init__(self) -> None:
        super().__init__(instructions="You answer customers of Oak Street Books in the web chat.")

    @function_tool
    async def order_status(self, order: str) -> str:
        """Where an order is."""
        return f"Order {order} left the warehouse yesterday."


def text() -> AgentSession[None]:  # `sessions=`: tests hand in a scripted model
    return AgentSession(llm=openai.LLM())


async def entrypoint(ctx: JobContext, sessions: Callable[[], AgentSession[None]] = text) -> None:
    await memory.start(
        ctx,
        sessions(),
        agent=WebChat(),
        room=ctx.room,
        room_options=RoomOptions(audio_input=False, audio_output=False),
    )


server = AgentServer()
memory = CallerMemory.from_env(
    "web-chat",
    defaults=CodeDefaults(read=True, save=True, identity_key="customerId"),
    server=server,
)
server.rtc_session(entrypoint, agent_name="web-chat")
if __name__ == "__main__":
    cli.run_app(server)
