"""The memory side of one call, wired onto someone else's session and agent.

Once the caller is on the line (`lifecycle.opening`): record the transcript, wire every close
path to the one save, recall inside the pre-greeting deadline and put the memory block into the
agent's own instructions (in turn mode refreshed after each saved pass,
`lifecycle.memory_block`). All of it happens before `session.start()`, so whatever the agent
says first (its own `on_enter` greeting) is generated with memory already in its instructions.
Nothing else of the agent changes: its tools, `on_enter` and greeting are its own. The attach
API (`callmemory`) and the tests run this same sequence; only where the caller comes from and
how the session starts (a LiveKit room, or fake audio I/O) differ.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import structlog
from livekit.agents import Agent, AgentSession, AgentStateChangedEvent

from lifecycle.closing import CallEnd, RoomEvents, ShutdownRegistrar, save_on_close, shared_save
from lifecycle.instructions import give_memory, give_prompt
from lifecycle.journal import CallJournal, JournalSetup, call_journal
from lifecycle.live import DataRoom, data_channel
from lifecycle.memory_block import MemoryBlock
from lifecycle.metrics import count_memory_off, count_session_usage
from lifecycle.pass_schedule import DEFAULT_CONSOLIDATE, Consolidate
from lifecycle.passes import TurnPasses
from lifecycle.plan import MemoryPlan
from lifecycle.recall import recall_for
from lifecycle.reply_first import reply_first
from lifecycle.save import SharedSave
from lifecycle.saving import CallScope
from lifecycle.start import CallStart
from memory.api import Memory
from memory.config import DEFAULT_TIMEOUT_SECONDS
from memory.contract import Recall
from transcript.recorder import TranscriptRecorder
from transcript.recorder import attach as record_transcript

log = structlog.get_logger(__name__)


class SessionAlreadyStarted(RuntimeError):
    """Memory was attached to a session already running: its greeting could not have memory."""

    def __init__(self) -> None:
        super().__init__("session: attach memory before session.start()")


@dataclass(frozen=True, slots=True)
class CallSetup:
    """The call's start and how its memory is kept: the save's bound, the consolidation mode."""

    start: CallStart
    save_timeout_seconds: float
    consolidate: Consolidate = DEFAULT_CONSOLIDATE  # "turn": a pass after each agent reply
    model_timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS  # one extraction (MemoryConfig's)
    journal: JournalSetup | None = None  # None: no journal (what it heard dies with the job)


@dataclass(frozen=True, slots=True)
class MemoryCall:
    """Memory attached to one call: what it planned and recalled, its transcript and its save."""

    plan: MemoryPlan
    recalled: Recall | None
    recorder: TranscriptRecorder
    save: SharedSave
    end: CallEnd
    passes: TurnPasses | None = None  # turn mode only
    journal: CallJournal | None = None


async def attach_memory(
    session: AgentSession[Any],
    agent: Agent,
    memory: Memory,
    setup: CallSetup,
    *,
    register_shutdown: ShutdownRegistrar,
    room: RoomEvents | None = None,
    after_save: Callable[[], Awaitable[None]] | None = None,
    data_room: DataRoom | None = None,
) -> MemoryCall:
    """Wire transcript and save, then recall into `agent`'s instructions; before `start()`.

    `room`: the call's LiveKit room, whose SIP caller leaving ends the call at once.
    `after_save`: runs after the save, in the same job shutdown callback (closing the pool).
    `data_room`: the room whose data channel gets this call's `memory.ops` events.
    """
    if session.agent_state != "initializing":
        raise SessionAlreadyStarted()
    recorder = record_transcript(session)
    end = CallEnd()
    _note_start(session, end)
    if data_room is not None:
        memory.on("ops", data_channel(data_room))
    start = setup.start
    journal = call_journal(
        setup.journal, start, setup.consolidate, give_way=functools.partial(reply_first, session)
    )
    if journal is not None:
        recorder.on_heard(journal.heard)
    passes = _turn_passes(memory, setup, recorder, session)
    save = shared_save(
        memory,
        start.plan,
        recorder,
        end,
        session,
        started_at=start.started_at,
        run_id=start.run_id,
        timeout=setup.save_timeout_seconds,
        passes=passes,
        model_timeout=setup.model_timeout_seconds,
        journal=journal,
    )
    save_on_close(session, register_shutdown, save, end, room=room, then=after_save)
    count_session_usage(session)
    recalled = await recall_for(start.plan, memory, start.deadline, start.recalled, start.run_id)
    if journal is not None:
        journal.start()  # after recall: its first write never competes with the greeting's
    await give_prompt(agent, start.prompt)  # the published prompt of the snapshot, if any
    own = agent.instructions
    await give_memory(agent, recalled)
    if passes is not None and recalled is not None:
        passes.block = MemoryBlock(agent, own, recalled)  # refreshed after each saved pass
    return MemoryCall(start.plan, recalled, recorder, save, end, passes, journal)


def _turn_passes(
    memory: Memory, setup: CallSetup, recorder: TranscriptRecorder, session: AgentSession[Any]
) -> TurnPasses | None:
    start, plan = setup.start, setup.start.plan
    if setup.consolidate != "turn" or not plan.save or plan.user_id is None:
        return None
    scope = CallScope.of(plan, start.started_at, start.run_id)
    return TurnPasses(memory, scope, recorder, session)


def _note_start(session: AgentSession[Any], end: CallEnd) -> None:
    """Mark the call's end once the session runs: only a started session sends `close`."""

    def on_state(event: AgentStateChangedEvent) -> None:
        if event.new_state != "initializing":
            end.session_started = True
            session.off("agent_state_changed", on_state)

    session.on("agent_state_changed", on_state)


def report_plan(plan: MemoryPlan) -> None:
    """One event per call saying whether memory is used, and why not (a code, never a value)."""
    log.info(
        "call.memory_plan",
        agent_id=plan.agent_id,
        read=plan.read,
        save=plan.save,
        active=plan.active,
        reason=plan.reason,
    )
    if plan.reason is not None:
        count_memory_off(plan.reason)
