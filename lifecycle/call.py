"""The memory side of one call, in the order it must happen.

Record the transcript, wire every close path to the one save, recall (inside the pre-greeting
deadline) before the agent exists, start the session, greet. The worker entrypoint and the
tests run this same sequence; only how the session starts (a LiveKit room, or fake audio I/O)
differs.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from livekit.agents import Agent, AgentSession

from lifecycle.closing import CallEnd, RoomEvents, ShutdownRegistrar, save_on_close, shared_save
from lifecycle.context import with_memory
from lifecycle.plan import MemoryPlan
from lifecycle.recall import recall_for
from lifecycle.save import SharedSave
from memory.api import Memory
from memory.deadline import Deadline
from transcript.recorder import TranscriptRecorder
from transcript.recorder import attach as record_transcript

GREETING = "Greet the caller warmly and briefly, then ask how you can help."


@dataclass(frozen=True, slots=True)
class CallSetup:
    """Everything fixed at room open that the memory side of the call needs."""

    plan: MemoryPlan
    instructions: str
    started_at: datetime
    run_id: str
    recall_deadline: Deadline  # the pre-greeting deadline (lifecycle.opening)
    save_timeout_seconds: float


@dataclass(frozen=True, slots=True)
class RunningCall:
    agent: Agent
    recorder: TranscriptRecorder
    save: SharedSave
    end: CallEnd


async def start_call(
    session: AgentSession[Any],
    memory: Memory,
    setup: CallSetup,
    *,
    register_shutdown: ShutdownRegistrar,
    start: Callable[[Agent], Awaitable[Any]],
    room: RoomEvents | None = None,
    after_save: Callable[[], Awaitable[None]] | None = None,
) -> RunningCall:
    """`room`: the call's LiveKit room, whose SIP caller leaving ends the call at once."""
    recorder = record_transcript(session)
    end = CallEnd()
    save = shared_save(
        memory,
        setup.plan,
        recorder,
        end,
        session,
        started_at=setup.started_at,
        run_id=setup.run_id,
        timeout=setup.save_timeout_seconds,
    )
    save_on_close(session, register_shutdown, save, end, room=room, then=after_save)
    recall = await recall_for(setup.plan, memory, setup.recall_deadline)
    agent = Agent(instructions=with_memory(setup.instructions, recall))
    await start(agent)
    end.session_started = True
    session.generate_reply(instructions=GREETING)
    return RunningCall(agent, recorder, save, end)
