"""LiveKit's starter agent in shape, with caller memory attached.

Like the starter: a `prewarm` setup function, the LLM set on the `Agent`, a streaming TTS,
preemptive generation and no greeting of its own. The same agent without memory is
`assistant_without_memory.py`; they differ in four lines, one of which turns on the TTS's
word timestamps so an interrupted reply's heard part can be saved without losing streaming.
"""

from typing import Any

from livekit.agents import Agent, AgentServer, AgentSession, JobContext, JobProcess, cli, inference

from callmemory import PHONE_CALLERS, CallerMemory

VOICE = "9626c31c-bec5-4cca-baa8-f8ba9e84c8bc"


class Assistant(Agent):
    def __init__(self) -> None:
        super().__init__(
            instructions=(
                "You are a helpful voice AI assistant. Keep answers short and plain, with no"
                " formatting, emojis or symbols."
            ),
            llm=inference.LLM(model="openai/gpt-4.1-mini"),
        )


server = AgentServer()
memory = CallerMemory.from_env("assistant", defaults=PHONE_CALLERS, server=server)


def prewarm(proc: JobProcess) -> None:  # once per process, before its first call
    proc.userdata["tts"] = inference.TTS(
        model="cartesia/sonic-3",
        voice=VOICE,
        extra_kwargs={"add_timestamps": True},
    )


server.setup_fnc = prewarm


@server.rtc_session(agent_name="assistant")
async def my_agent(ctx: JobContext, sessions: Any = AgentSession) -> None:  # `sessions=`: tests
    session = sessions(
        stt=inference.STT(model="assemblyai/universal-streaming", language="en"),
        tts=ctx.proc.userdata["tts"],
        turn_handling={"preemptive_generation": {"enabled": True}},
    )
    await memory.start(ctx, session, agent=Assistant(), room=ctx.room)
    await ctx.connect()  # as in the starter: the room is joined by now, so this does nothing


if __name__ == "__main__":
    cli.run_app(server)
