"""One phone call played inside a real job process (livekit's PROCESS executor).

`ScriptedCall` is the session factory `worker.agent.build_server` hands to the entrypoint.
Under the PROCESS executor livekit pickles the entrypoint, with this factory, into each job
process, so it holds plain values only and does all its work there. When the job builds its
session, the factory puts a SIP caller into livekit's mock room (a fake job runs on it), builds
a real AgentSession on fake models and audio I/O, and plays the caller's part:

- the greeting plays, then `ON_THE_LINE` is logged (through the job's log forwarding, like
  every event of the job);
- the caller says each of `says` in turn (a committed caller turn, answered by `REPLY`), then
  `CALLER_SPOKE` is logged once the last reply has played;
- the caller hangs up `hang_up_after` seconds later and, `room_closes_after` seconds after
  that, the room closes: the job ends with reason "room disconnected", as it does when LiveKit
  closes an empty room;
- with `hang_up_when` (a directory), the caller of room `<tag>-<i>` hangs up once a file named
  `<tag>` is in it (a burst's calls stay on the line together until the benchmark ends them);
- or, with `hang_up_after=None`, the caller stays on the line until the worker stops or the
  job process is killed.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import structlog
from livekit import rtc
from livekit.agents import AgentSession, JobContext, get_job_context

from testkit.fake_devices import FakeCallIO, fake_session, wait_until, wire
from testkit.fake_models import FakeLLM
from testkit.mock_room import SIP, MockRoom, participant

log = structlog.get_logger(__name__)

NUMBER = "+34600111222"
GREETING = "Hello, how can I help?"
REPLY = "Noted."
ON_THE_LINE = "testkit.caller_on_line"
"""Logged in the job process once the greeting has played: the call is under way. Its fields:
`first_frame_at` (the greeting's first audio frame, `time.monotonic()`, comparable across the
machine's processes), `job_started_at` (when the job's entrypoint built its session, the same
clock) and `greeting_recalled` (the model's context for the greeting held
`RECALLED_MARK`, a text the benchmark puts into every caller's facts)."""
RECALLED_MARK = "burst-recall-mark"
CALLER_SPOKE = "testkit.caller_spoke"
"""Logged in the job process once every line of `says` was answered and the answer played."""
SCRIPT_FAILED = "testkit.script_failed"

_playing: set[asyncio.Task[None]] = set()


@dataclass(frozen=True, slots=True)
class ScriptedCall:
    """The caller's part of one call; `hang_up_after=None`: never hang up."""

    hang_up_after: float | None = 0.3
    room_closes_after: float = 0.5
    number: str = NUMBER
    says: tuple[str, ...] = ()
    stuck_shutdown: bool = False
    numbered: bool = False  # the caller's number from the room's name (`numbered_caller`)
    hang_up_when: str | None = None  # a directory: hang up once the room's tag is a file in it

    def __call__(self, *_: Any) -> AgentSession[Any]:
        started_at = time.monotonic()
        room = MockRoom.of_this_job()
        ctx = get_job_context()
        number = numbered_caller(ctx.job.room.name) if self.numbered else self.number
        attributes = {"sip.phoneNumber": number, "sip.ruleID": "rule-1"}
        caller = participant("sip_caller", SIP, attributes)
        room.join(caller)
        model = FakeLLM([GREETING], default_reply=REPLY)
        session = fake_session(llm_model=model)
        call_io = wire(session, mic=True)  # a mic, so RoomIO opens no track of its own
        if self.stuck_shutdown:
            ctx.add_shutdown_callback(_never_ends)
        task = asyncio.create_task(
            self._play(ctx, session, room, caller, call_io, model=model, started_at=started_at)
        )
        _playing.add(task)
        task.add_done_callback(_finished)
        return session

    async def _play(
        self,
        ctx: JobContext,
        session: AgentSession[Any],
        room: MockRoom,
        caller: rtc.RemoteParticipant,
        call_io: FakeCallIO,
        *,
        model: FakeLLM,
        started_at: float,
    ) -> None:
        await wait_until(lambda: call_io.speaker.segments != [], within=30)
        log.info(
            ON_THE_LINE,
            job_started_at=started_at,
            first_frame_at=call_io.speaker.first_frame_at,
            greeting_recalled=_recalled(model),
        )
        if self.says:  # the caller answers once the greeting is in the conversation
            await wait_until(lambda: _greeted(session), within=30)
        for line in self.says:
            await session.generate_reply(user_input=line).wait_for_playout()
        if self.says:
            log.info(CALLER_SPOKE)
        if self.hang_up_when is not None:
            signal = Path(self.hang_up_when) / ctx.job.room.name.rsplit("-", 1)[0]
            while not signal.exists():  # noqa: ASYNC110 (another process writes it)
                await asyncio.sleep(0.1)
        if self.hang_up_after is None:
            return
        await asyncio.sleep(self.hang_up_after)
        room.leave(caller, rtc.DisconnectReason.CLIENT_INITIATED)
        await asyncio.sleep(self.room_closes_after)
        room.disconnect()
        ctx.shutdown("room disconnected")


def numbered_caller(room: str) -> str:
    """The caller of room `<name>-<i>`: one number per index (the burst benchmark's people)."""
    return f"+3461{int(room.rsplit('-', 1)[1]):07d}"


def _recalled(model: FakeLLM) -> bool:
    """Whether the greeting was generated with `RECALLED_MARK` in its context."""
    if not model.calls:
        return False
    texts = (str(item.text_content or "") for item in model.calls[0].chat_ctx.messages())
    return any(RECALLED_MARK in text for text in texts)


def _greeted(session: AgentSession[Any]) -> bool:
    return any(message.role == "assistant" for message in session.history.messages())


async def _never_ends(_: str) -> None:
    await asyncio.Event().wait()


def _finished(task: asyncio.Task[None]) -> None:
    _playing.discard(task)
    if not task.cancelled() and (error := task.exception()) is not None:
        log.error(SCRIPT_FAILED, error_type=type(error).__name__)
