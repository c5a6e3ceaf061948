"""LiveKit's starter agent in shape, with caller memory, one business tool and a text channel.

As in LiveKit's `agent-starter-python`: the models set on the session (LiveKit inference STT,
LLM and a streaming TTS), preemptive generation, no greeting of its own, `ctx.connect()` after
the session starts. Not here, because this project does not install their plugins: the starter's
Silero VAD (loaded in its `prewarm`), its multilingual turn detector (whose model weights
`download-files` fetches) and LiveKit Cloud's noise cancellation (which needs LiveKit Cloud);
add them as the starter does, nothing else changes.

Against its twin `assistant_without_memory.py`: memory is attached in four lines (one of them
turns on the TTS's word timestamps, so an interrupted reply's heard part can be saved), and one
`define_agent(...)` declares the agent once for both channels. Voice: `python
examples/assistant.py start`. Text: the web process with `AGENTS=examples.assistant:agents`
answers `POST /v1/chat/completions` with `model="assistant"`, running the same `lookup_order`.
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

from callmemory import PHONE_CALLERS, CallerMemory, define_agent

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


agents = [
    define_agent(
        name="assistant", instructions=INSTRUCTIONS, memory=PHONE_CALLERS, tools=[lookup_order]
    )
]


class Assistant(Agent):
    def __init__(self) -> None:
        super().__init__(instructions=INSTRUCTIONS, tools=[lookup_order])


server = AgentServer()
memory = CallerMemory.from_env(agents[0], server=server)


@server.rtc_session(agent_name="assistant")
async def my_agent(ctx: JobContext, sessions: Any = AgentSession) -> None:  # `sessions=`: tests
    session = sessions(
        stt=inference.STT(model="assemblyai/universal-streaming", language="en"),
        llm=inference.LLM(model="openai/gpt-4.1-mini"),
        tts=inference.TTS(
            model="cartesia/sonic-3",
            voice=VOICE,
            extra_kwargs={"add_timestamps": True},
        ),
        turn_handling={"preemptive_generation": {"enabled": True}},
    )
    await memory.start(ctx, session, agent=Assistant(), room=ctx.room)
    await ctx.connect()


if __name__ == "__main__":
    cli.run_app(server)
