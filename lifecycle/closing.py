"""Every path that ends a call leads to the same single save, read after the session closed.

Whichever of these fires first starts the save; every later one awaits the same completion:

- the session's `close` event (RoomIO's close on a caller disconnect, a session error, agent
  code closing the session, the job runner closing it on the way to a job shutdown);
- the SIP caller leaving the room, with any disconnect reason: RoomIO closes the session only
  for `CLIENT_INITIATED`, `ROOM_DELETED` and `USER_REJECTED` and otherwise waits for a rejoin
  that a phone leg never makes, so the call closes the session itself and saves at once;
- a job shutdown callback (`ctx.shutdown()`, a worker stop or drain, the room disconnecting, an
  entrypoint crash), which also keeps the job process alive until the save ends.

The save then, in order: asks the session to close if it is still open and waits for its
`close` event (at most `CLOSE_WAIT_SECONDS`), so a prefix committed during the close is kept;
waits for the cause while only a close by code in the job is known (at most
`CAUSE_WAIT_SECONDS`: livekit's runner closes the session before it hands the shutdown reason to
callbacks, see `lifecycle.outcome`); and only then reads the transcript and saves it once.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Coroutine
from datetime import UTC, datetime
from typing import Any, Protocol

import structlog
from livekit import rtc
from livekit.agents import AgentSession, CloseEvent

from infra.deadline import Deadline, Late, within
from lifecycle.journal import CallJournal, journalled
from lifecycle.outcome import (
    CLOSING_DISCONNECT_REASONS,
    CallerLeft,
    EndFact,
    JobShutdown,
    Outcome,
    SessionClosed,
    decide,
    final_outcome,
)
from lifecycle.pass_schedule import running_pass_wait
from lifecycle.passes import TurnPasses
from lifecycle.plan import MemoryPlan
from lifecycle.save import SaveReport, SharedSave
from lifecycle.saving import CallScope, FinalPass, save_heard
from memory.api import Memory
from memory.config import DEFAULT_TIMEOUT_SECONDS
from transcript.recorder import TranscriptRecorder

log = structlog.get_logger(__name__)

ShutdownRegistrar = Callable[[Callable[[str], Coroutine[Any, Any, None]]], None]

CLOSE_WAIT_SECONDS = 5.0
"""How long the save waits for the session's close (and the prefix it commits)."""
CAUSE_WAIT_SECONDS = 3.0
"""How long a close by code in the job waits for a job shutdown reason to explain it."""
SETTLE_SECONDS = CLOSE_WAIT_SECONDS + CAUSE_WAIT_SECONDS
"""The most the save waits before it reads the transcript."""
_SIP_KIND = rtc.ParticipantKind.PARTICIPANT_KIND_SIP


class RoomEvents(Protocol):
    """The part of `rtc.Room` the close wiring listens to."""

    def on(self, event: Any, callback: Callable[..., Any] | None = None) -> Any: ...


class CallEnd:
    """The facts of how the call is ending, in arrival order, and waiting until they settle."""

    def __init__(self) -> None:
        self._facts: list[EndFact] = []
        self._closed = asyncio.Event()
        self._changed = asyncio.Event()
        self.session_started = False
        """Set once `session.start()` returned: only a started session sends `close`."""

    @property
    def facts(self) -> tuple[EndFact, ...]:
        return tuple(self._facts)

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    def record(self, fact: EndFact) -> None:
        self._facts.append(fact)
        if isinstance(fact, SessionClosed):
            self._closed.set()
        self._changed.set()

    async def settle(self, *, close_wait: float, cause_wait: float) -> Outcome:
        """Wait (bounded) for the close, then for a decisive fact; the outcome they give."""
        if self.session_started:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._closed.wait(), close_wait)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + cause_wait
        while decide(self._facts) is None and (left := deadline - loop.time()) > 0:
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), left)
        return final_outcome(self._facts)


def shared_save(
    memory: Memory,
    plan: MemoryPlan,
    recorder: TranscriptRecorder,
    end: CallEnd,
    session: AgentSession[Any],
    *,
    started_at: datetime,
    run_id: str,
    timeout: float,
    passes: TurnPasses | None = None,
    model_timeout: float = DEFAULT_TIMEOUT_SECONDS,
    journal: CallJournal | None = None,
) -> SharedSave:
    """The call's one save: the heard transcript, read after the close, with the true outcome.

    `passes`: turn mode; the save waits (bounded) for the running pass and is the final pass.
    `model_timeout`: one extraction's timeout, the time the final pass keeps for its model.
    `journal`: the call's journal, marked before the model call and ended with the save.
    """

    async def save(path: str) -> SaveReport:
        if passes is not None:
            passes.close()  # from now on no pass starts and no memory block is refreshed
        if not plan.save or plan.user_id is None:
            return SaveReport("skipped", plan.reason or "save_off", path)
        if end.session_started and not end.closed:
            session.shutdown(drain=False)  # the call is over: commit what was heard, now
        outcome = await end.settle(close_wait=CLOSE_WAIT_SECONDS, cause_wait=CAUSE_WAIT_SECONDS)
        log.info("call.ended", outcome=outcome.value, trigger=path)
        scope = CallScope.of(plan, started_at, run_id)
        deadline = Deadline.after(timeout)
        final = None
        if passes is not None:
            # a pass still running past its wait is cancelled: the final pass reads its part
            await passes.finish(grace=running_pass_wait(timeout, model_timeout))
            final = FinalPass(passes.covered, passes.turn)
        heard = recorder.transcript  # read after the close: what it committed is in
        ended_at = datetime.now(UTC)
        try:
            report = await within(
                deadline,
                journalled(
                    journal,
                    lambda: save_heard(
                        memory, scope, heard, ended_at=ended_at, outcome=outcome, final=final
                    ),
                ),
                step="save",
            )
        except Late:
            return SaveReport("failed", "save_timeout", path)
        return SaveReport(report.status, report.reason, path)

    # `timeout` bounds the extraction and write; the waits before the read are bounded apart
    return SharedSave(save, timeout=timeout + SETTLE_SECONDS)


def save_on_close(
    session: AgentSession[Any],
    register_shutdown: ShutdownRegistrar,
    save: SharedSave,
    end: CallEnd,
    *,
    room: RoomEvents | None = None,
    then: Callable[[], Awaitable[None]] | None = None,
) -> None:
    """Wire the close event, the SIP caller's departure and the job shutdown to the one save.

    `then` runs after the save in the same callback (closing the job's pool): livekit runs
    shutdown callbacks concurrently, so a separate callback could close it mid-save.
    """

    def on_close(event: CloseEvent) -> None:
        end.record(SessionClosed(event.reason.value))
        save.trigger("close")

    def on_participant_disconnected(participant: rtc.RemoteParticipant) -> None:
        if participant.kind != _SIP_KIND:
            return  # browser participants: RoomIO's rule, they may rejoin
        reason = rtc.DisconnectReason.Name(
            participant.disconnect_reason or rtc.DisconnectReason.UNKNOWN_REASON
        )
        end.record(CallerLeft(reason))
        if reason not in CLOSING_DISCONNECT_REASONS:
            session.shutdown(drain=False)  # RoomIO would keep waiting for a rejoin
        save.trigger("hang_up")

    async def on_shutdown(reason: str) -> None:
        end.record(JobShutdown(reason))
        # a raising shutdown callback makes livekit cancel the others: never raise from here
        with contextlib.suppress(Exception):
            await save.wait("shutdown")
        if then is not None:
            with contextlib.suppress(Exception):
                await then()

    session.on("close", on_close)
    if room is not None:
        room.on("participant_disconnected", on_participant_disconnected)
    register_shutdown(on_shutdown)
