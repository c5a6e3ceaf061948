"""LiveKit's starter agent in shape, without memory.

Like the starter: a `prewarm` setup function, the LLM set on the `Agent`, a streaming TTS,
preemptive generation and no greeting of its own. The twin of `assistant.py`, which attaches
caller memory to this same agent in four lines.
"""

from typing import Any

from livekit.agents import Agent, AgentServer, AgentSession, JobContext, JobProcess, cli, inference

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


def prewarm(proc: JobProcess) -> None:  # once per process, before its first call
    proc.userdata["tts"] = inference.TTS(
        model="cartesia/sonic-3",
        voice=VOICE,
    )


server.setup_fnc = prewarm


@server.rtc_session(agent_name="assistant")
async def my_agent(ctx: JobContext, sessions: Any = AgentSession) -> None:  # `sessions=`: tests
    session = sessions(
        stt=inference.STT(model="assemblyai/universal-streaming", language="en"),
        tts=ctx.proc.userdata["tts"],
        turn_handling={"preemptive_generation": {"enabled": True}},
    )
    await session.start(agent=Assistant(), room=ctx.room)
    await ctx.connect()  # as in the starter: the room is joined by now, so this does nothing


if __name__ == "__main__":
    cli.run_app(server)
