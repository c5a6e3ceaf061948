"""Fake audio I/O (microphone, speaker, transcript display) and the wiring of a fake call.

Everything subclasses livekit-agents' public base classes, so the framework runs its own
scheduling, interruption and transcript-synchronisation code against them. Audio is silent or a
tone and plays against the wall clock, so tests that measure "what was heard" see real timing.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from livekit import rtc
from livekit.agents import (
    NOT_GIVEN,
    AgentSession,
    tts,
    utils,
)
from livekit.agents.voice import io
from livekit.agents.voice.transcription import TranscriptSynchronizer

from testkit.fake_models import SAMPLE_RATE, FakeLLM, FakeSTT, FakeTTS

# --------------------------------------------------------------------------- audio I/O


class FakeMic(io.AudioInput):
    """Silent 20 ms frames in real time, so the STT node runs."""

    def __init__(self) -> None:
        super().__init__(label="FakeMic")
        self._next_at = time.monotonic()

    async def __anext__(self) -> rtc.AudioFrame:
        self._next_at += 0.02
        await asyncio.sleep(max(0.0, self._next_at - time.monotonic()))
        return rtc.AudioFrame(b"\x00\x00" * 480, SAMPLE_RATE, 1, 480)


@dataclass(frozen=True, slots=True)
class PlayedSegment:
    """One segment as the fake speaker played it."""

    pushed: float
    played: float
    interrupted: bool


@dataclass(slots=True)
class _Segment:
    started_at: float
    pushed: float = 0.0
    flushed: bool = False
    playout: asyncio.Task[None] | None = None
    runs: list[tuple[float, float]] = field(default_factory=list)
    """(monotonic start, seconds) of each frame's playback; a frame that arrives after the
    previous one finished starts late (the sink ran dry), as a real audio device does."""

    def add(self, now: float, seconds: float) -> None:
        start = max(now, self.ends_at)
        self.runs.append((start, seconds))
        self.pushed += seconds

    @property
    def ends_at(self) -> float:
        return self.runs[-1][0] + self.runs[-1][1] if self.runs else self.started_at

    def played(self, now: float) -> float:
        return sum(min(seconds, max(0.0, now - start)) for start, seconds in self.runs)


class FakeSpeaker(io.AudioOutput):
    """Plays captured audio against the wall clock, like a real sink.

    A segment starts at its first frame and ends when all of it has played (not interrupted) or
    at `clear_buffer()` (interrupted). Frames play back to back in real time; when the next frame
    arrives after the previous one finished, the sink is silent in between (a stall).
    `first_frame_at` is the `time.monotonic()` of the first frame ever captured; `segments` lists
    what each segment played.
    """

    def __init__(self) -> None:
        super().__init__(
            label="FakeSpeaker",
            capabilities=io.AudioOutputCapabilities(pause=False),
            sample_rate=SAMPLE_RATE,
        )
        self.first_frame_at: float | None = None
        self.segments: list[PlayedSegment] = []
        self._segment: _Segment | None = None
        self.errors: list[BaseException] = []
        self._tasks: set[asyncio.Task[None]] = set()

    async def capture_frame(self, frame: rtc.AudioFrame) -> None:
        await super().capture_frame(frame)
        now = time.monotonic()
        if self.first_frame_at is None:
            self.first_frame_at = now
        if self._segment is None:
            self._segment = _Segment(started_at=now)
            self.on_playback_started(created_at=time.time())
        self._segment.add(now, frame.duration)

    def flush(self) -> None:
        super().flush()
        segment = self._segment
        if segment is None or segment.flushed:
            return
        segment.flushed = True
        segment.playout = asyncio.create_task(self._play_out(segment))
        self._tasks.add(segment.playout)
        segment.playout.add_done_callback(self._forget)

    def playing(self) -> float:
        """Seconds the segment now playing has played so far (0.0 between segments)."""
        return 0.0 if self._segment is None else self._segment.played(time.monotonic())

    def clear_buffer(self) -> None:
        if self._segment is not None:
            self._finish(self._segment, interrupted=True)

    async def aclose(self) -> None:
        """Stop any playout still running (for test teardown)."""
        await utils.aio.cancel_and_wait(*self._tasks)

    async def _play_out(self, segment: _Segment) -> None:
        await asyncio.sleep(max(0.0, segment.ends_at - time.monotonic()))
        self._finish(segment, interrupted=False)

    def _finish(self, segment: _Segment, *, interrupted: bool) -> None:
        if self._segment is not segment:
            return
        self._segment = None
        if interrupted and segment.playout is not None:
            segment.playout.cancel()
        played = segment.pushed if not interrupted else segment.played(time.monotonic())
        self.segments.append(PlayedSegment(segment.pushed, played, interrupted))
        self.on_playback_finished(playback_position=played, interrupted=interrupted)

    def _forget(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and (error := task.exception()) is not None:
            self.errors.append(error)


class RecordingText(io.TextOutput):
    """What a frontend would display as the agent transcript, one string per segment."""

    def __init__(self) -> None:
        super().__init__(label="RecordingText", next_in_chain=None)
        self.segments: list[str] = [""]

    async def capture_text(self, text: str) -> None:
        self.segments[-1] += text

    def flush(self) -> None:
        if self.segments[-1]:
            self.segments.append("")

    @property
    def shown(self) -> list[str]:
        return [s for s in self.segments if s]


# --------------------------------------------------------------------------- wiring


@dataclass(slots=True)
class FakeCallIO:
    """The fake devices wired into one session."""

    speaker: FakeSpeaker
    text: RecordingText
    mic: FakeMic | None
    synchronizer: TranscriptSynchronizer | None = field(default=None)

    async def aclose(self) -> None:
        """After the session closed, what RoomIO closes with it: the synchronizer (its segment
        tasks would be left pending) and the speaker."""
        if self.synchronizer is not None:
            await self.synchronizer.aclose()
        await self.speaker.aclose()


def wire(
    session: AgentSession[Any],
    *,
    synchronized: bool = True,
    transcription: bool = True,
    mic: bool = False,
) -> FakeCallIO:
    """Assign fake I/O to a session before `start()`, the way RoomIO would.

    `synchronized`: wrap the speaker in a TranscriptSynchronizer (RoomIO does with text output
    on). `transcription=False` disables the transcription output, which turns the synchronizer off.
    `mic`: feed silent frames so a streaming STT runs (needed for barge-in by speech).
    """
    call_io = FakeCallIO(
        speaker=FakeSpeaker(), text=RecordingText(), mic=FakeMic() if mic else None
    )
    if synchronized:
        sync = TranscriptSynchronizer(
            next_in_chain_audio=call_io.speaker, next_in_chain_text=call_io.text
        )
        call_io.synchronizer = sync
        session.output.audio = sync.audio_output
        session.output.transcription = sync.text_output
    else:
        session.output.audio = call_io.speaker
        session.output.transcription = call_io.text
    if not transcription:
        session.output.set_transcription_enabled(False)
    if call_io.mic is not None:
        session.input.audio = call_io.mic
    return call_io


def fake_session(
    *,
    llm_model: FakeLLM,
    tts_model: tts.TTS[Any] | None = None,
    stt_model: FakeSTT | None = None,
    aligned_transcript: bool = False,
    preemptive: bool = False,
) -> AgentSession[None]:
    """An AgentSession with deterministic turn handling and no room, VAD or warm-up.

    With `stt_model` the user's turns end on STT end-of-speech and interim transcripts barge in;
    without, turns are manual (`generate_reply(user_input=...)`). `preemptive`: livekit's
    preemptive generation (the reply's request starts on the final transcript).
    """
    return AgentSession(
        stt=stt_model if stt_model is not None else NOT_GIVEN,
        llm=llm_model,
        tts=tts_model if tts_model is not None else FakeTTS(),
        vad=None,
        turn_handling={
            "turn_detection": "stt" if stt_model is not None else "manual",
            "endpointing": {"min_delay": 0.05, "max_delay": 0.3},
            "interruption": {"min_duration": 0.0, "resume_false_interruption": False},
            "preemptive_generation": {"enabled": preemptive},
        },
        aec_warmup_duration=None,
        user_away_timeout=None,
        use_tts_aligned_transcript=aligned_transcript,
    )


BUSY_MACHINE_SECONDS = 30.0
"""How long a wait lasts by default: what takes milliseconds on a quiet machine can take
seconds on a loaded one (a wait, never a measurement: it returns once the condition holds)."""


async def wait_until(
    predicate: Callable[[], bool], *, within: float = BUSY_MACHINE_SECONDS
) -> None:
    """Poll until `predicate()` holds; fail after `within` seconds."""
    deadline = time.monotonic() + within
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError("condition not reached in time")
        await asyncio.sleep(0.005)


async def wait_for_state(
    session: AgentSession[Any], state: str, *, within: float = BUSY_MACHINE_SECONDS
) -> None:
    """Poll until the agent reaches `state` (e.g. "speaking")."""
    await wait_until(lambda: session.agent_state == state, within=within)
