"""LiveKit's starter agent in shape, without memory, with one business tool.

As in LiveKit's `agent-starter-python`: the models set on the session (LiveKit inference STT,
LLM and a streaming TTS), preemptive generation, no greeting of its own, `ctx.connect()` after
the session starts. Not here, because this project does not install their plugins: the starter's
Silero VAD (loaded in its `prewarm`), its multilingual turn detector (whose model weights
`download-files` fetches) and LiveKit Cloud's noise cancellation (which needs LiveKit Cloud);
add them as the starter does, nothing else changes. The twin of `assistant.py`, which gives
this same agent memory and a text channel.
"""

from typing import Any

from livekit.agents import (
    Agent,
    AgentServer,
    AgentSession,
    JobContext,
    cli,
    function_tool,
    inference,
)

VOICE = "9626c31c-bec5-4cca-baa8-f8ba9e84c8bc"
INSTRUCTIONS = (
    "You are a helpful voice AI assistant. Keep answers short and plain, with no formatting,"
    " emojis or symbols. Look orders up with lookup_order."
)
ORDERS = {"A-100": "shipped on Monday, arriving Thursday", "B-200": "waiting for payment"}


@function_tool
async def lookup_order(order_id: str) -> str:
    """Look up an order's status.

    Args:
        order_id: the order number, for example A-100
    """
    return ORDERS.get(order_id.strip().upper(), "no order with that number")


class Assistant(Agent):
    def __init__(self) -> None:
        super().__init__(instructions=INSTRUCTIONS, tools=[lookup_order])


server = AgentServer()


@server.rtc_session(agent_name="assistant")
async def my_agent(ctx: JobContext, sessions: Any = AgentSession) -> None:  # `sessions=`: tests
    session = sessions(
        stt=inference.STT(model="assemblyai/universal-streaming", language="en"),
        llm=inference.LLM(model="openai/gpt-4.1-mini"),
        tts=inference.TTS(
            model="cartesia/sonic-3",
            voice=VOICE,
        ),
        turn_handling={"preemptive_generation": {"enabled": True}},
    )
    await session.start(agent=Assistant(), room=ctx.room)
    await ctx.connect()


if __name__ == "__main__":
    cli.run_app(server)
