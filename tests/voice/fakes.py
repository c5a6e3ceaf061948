"""Fake STT, LLM, TTS and audio I/O for driving a real AgentSession without a LiveKit server.

Everything subclasses livekit-agents' public base classes, so the framework runs its own
scheduling, interruption and transcript-synchronisation code against them. Audio is silent or a
tone and plays against the wall clock, so tests that measure "what was heard" see real timing.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Never

import numpy as np
from livekit import rtc
from livekit.agents import (
    DEFAULT_API_CONNECT_OPTIONS,
    NOT_GIVEN,
    AgentSession,
    APIConnectionError,
    APIConnectOptions,
    LanguageCode,
    NotGivenOr,
    llm,
    stt,
    tts,
    utils,
)
from livekit.agents.voice import io
from livekit.agents.voice.transcription import TranscriptSynchronizer

SAMPLE_RATE = 24_000
SECONDS_PER_CHAR = 0.015
"""Default length of fake speech per character of text (short, so tests stay fast)."""


def pcm(seconds: float, *, freq: float = 220.0) -> bytes:
    """A mono 16-bit sine tone of the given length, as raw PCM."""
    t = np.arange(max(1, int(SAMPLE_RATE * seconds))) / SAMPLE_RATE
    return (np.sin(2 * np.pi * freq * t) * 8000).astype(np.int16).tobytes()


def tone(seconds: float) -> rtc.AudioFrame:
    """A tone as one audio frame."""
    data = pcm(seconds)
    return rtc.AudioFrame(data, SAMPLE_RATE, 1, len(data) // 2)


async def prerecorded(
    seconds: float, *, frame_seconds: float = 0.05
) -> AsyncIterator[rtc.AudioFrame]:
    """Pre-recorded audio for `session.say(text, audio=...)`, in fixed-size frames."""
    for _ in range(max(1, round(seconds / frame_seconds))):
        yield tone(frame_seconds)


# --------------------------------------------------------------------------- LLM


@dataclass(frozen=True, slots=True)
class LLMCall:
    """What one `chat()` call received: a copy of the context, as (role, text) pairs."""

    chat_ctx: llm.ChatContext

    @property
    def messages(self) -> list[tuple[str, str]]:
        return [
            (item.role, item.text_content or "")
            for item in self.chat_ctx.items
            if item.type == "message"
        ]


class FakeLLMStream(llm.LLMStream):
    def __init__(
        self,
        fake: FakeLLM,
        *,
        chat_ctx: llm.ChatContext,
        tools: list[llm.Tool],
        conn_options: APIConnectOptions,
        reply: str,
    ) -> None:
        super().__init__(fake, chat_ctx=chat_ctx, tools=tools, conn_options=conn_options)
        self._reply = reply
        self._word_delay = fake.word_delay

    async def _run(self) -> None:
        request_id = utils.shortuuid("fakellm_")
        words = self._reply.split(" ")
        for i, word in enumerate(words):
            delta = word if i == len(words) - 1 else word + " "
            self._event_ch.send_nowait(
                llm.ChatChunk(id=request_id, delta=llm.ChoiceDelta(role="assistant", content=delta))
            )
            await asyncio.sleep(self._word_delay)


class FakeLLM(llm.LLM[Never]):
    """Streams scripted replies word by word, in order, and records every call it got."""

    def __init__(
        self,
        replies: Sequence[str] = (),
        *,
        default_reply: str = "Okay.",
        word_delay: float = 0.0,
    ) -> None:
        super().__init__()
        self._replies = list(replies)
        self.default_reply = default_reply
        self.word_delay = word_delay
        self.calls: list[LLMCall] = []

    @property
    def model(self) -> str:
        return "fake-llm"

    def script(self, *replies: str) -> None:
        """Queue more replies after the ones already scripted."""
        self._replies.extend(replies)

    def chat(
        self,
        *,
        chat_ctx: llm.ChatContext,
        tools: list[llm.Tool] | None = None,
        conn_options: APIConnectOptions = DEFAULT_API_CONNECT_OPTIONS,
        parallel_tool_calls: NotGivenOr[bool] = NOT_GIVEN,
        tool_choice: NotGivenOr[llm.ToolChoice] = NOT_GIVEN,
        extra_kwargs: NotGivenOr[dict[str, object]] = NOT_GIVEN,
    ) -> llm.LLMStream:
        self.calls.append(LLMCall(chat_ctx=chat_ctx.copy()))
        reply = self._replies.pop(0) if self._replies else self.default_reply
        return FakeLLMStream(
            self, chat_ctx=chat_ctx, tools=tools or [], conn_options=conn_options, reply=reply
        )


# --------------------------------------------------------------------------- TTS


class FakeChunkedStream(tts.ChunkedStream):
    def __init__(self, fake: FakeTTS, *, input_text: str, conn_options: APIConnectOptions) -> None:
        super().__init__(tts=fake, input_text=input_text, conn_options=conn_options)
        self._fake = fake

    async def _run(self, output_emitter: tts.AudioEmitter) -> None:
        if self._fake.fail_on is not None and self._fake.fail_on in self.input_text:
            raise APIConnectionError("fake TTS failure", retryable=False)
        output_emitter.initialize(
            request_id=utils.shortuuid("faketts_"),
            sample_rate=SAMPLE_RATE,
            num_channels=1,
            mime_type="audio/pcm",
        )
        seconds = max(0.05, len(self.input_text) * self._fake.seconds_per_char)
        output_emitter.push(pcm(seconds))
        output_emitter.flush()


class FakeTTS(tts.TTS[Never]):
    """Non-streaming TTS without timestamps (the framework wraps it in a sentence adapter).

    `fail_on`: any sentence containing this text fails with a non-retryable error.
    """

    def __init__(
        self, *, seconds_per_char: float = SECONDS_PER_CHAR, fail_on: str | None = None
    ) -> None:
        super().__init__(
            capabilities=tts.TTSCapabilities(streaming=False),
            sample_rate=SAMPLE_RATE,
            num_channels=1,
        )
        self.seconds_per_char = seconds_per_char
        self.fail_on = fail_on

    def synthesize(
        self, text: str, *, conn_options: APIConnectOptions = DEFAULT_API_CONNECT_OPTIONS
    ) -> tts.ChunkedStream:
        return FakeChunkedStream(self, input_text=text, conn_options=conn_options)


class FakeAlignedStream(tts.SynthesizeStream):
    def __init__(self, fake: FakeAlignedTTS, *, conn_options: APIConnectOptions) -> None:
        super().__init__(tts=fake, conn_options=conn_options)
        self._fake = fake

    async def _run(self, output_emitter: tts.AudioEmitter) -> None:
        output_emitter.initialize(
            request_id=utils.shortuuid("fakealigned_"),
            sample_rate=SAMPLE_RATE,
            num_channels=1,
            mime_type="audio/pcm",
            stream=True,
        )
        output_emitter.start_segment(segment_id=utils.shortuuid("seg_"))
        text = ""
        async for data in self._input_ch:
            if isinstance(data, str):
                text += data
        self._mark_started()
        start = 0.0
        for word in text.split(" "):
            spoken = word + " "
            seconds = len(spoken) * self._fake.seconds_per_char
            output_emitter.push_timed_transcript(
                io.TimedString(spoken, start_time=start, end_time=start + seconds)
            )
            output_emitter.push(pcm(seconds))
            start += seconds
        output_emitter.end_segment()


class FakeAlignedTTS(tts.TTS[Never]):
    """Streaming TTS that reports word timestamps, like providers with word alignment."""

    def __init__(self, *, seconds_per_char: float = SECONDS_PER_CHAR) -> None:
        super().__init__(
            capabilities=tts.TTSCapabilities(streaming=True, aligned_transcript=True),
            sample_rate=SAMPLE_RATE,
            num_channels=1,
        )
        self.seconds_per_char = seconds_per_char

    def synthesize(
        self, text: str, *, conn_options: APIConnectOptions = DEFAULT_API_CONNECT_OPTIONS
    ) -> tts.ChunkedStream:
        return self._synthesize_with_stream(text, conn_options=conn_options)

    def stream(
        self, *, conn_options: APIConnectOptions = DEFAULT_API_CONNECT_OPTIONS
    ) -> tts.SynthesizeStream:
        return FakeAlignedStream(self, conn_options=conn_options)


# --------------------------------------------------------------------------- STT


class FakeSTTStream(stt.RecognizeStream):
    def __init__(self, fake: FakeSTT, *, conn_options: APIConnectOptions) -> None:
        super().__init__(stt=fake, conn_options=conn_options)
        self._fake = fake

    async def _run(self) -> None:
        drain = asyncio.create_task(self._drain_audio())
        try:
            while True:
                self._event_ch.send_nowait(await self._fake.events.get())
        finally:
            await utils.aio.cancel_and_wait(drain)

    async def _drain_audio(self) -> None:
        async for _ in self._input_ch:
            pass


class FakeSTT(stt.STT[Never]):
    """Streaming STT whose recognitions the test injects with `say_user()`."""

    def __init__(self) -> None:
        super().__init__(capabilities=stt.STTCapabilities(streaming=True, interim_results=True))
        self.events: asyncio.Queue[stt.SpeechEvent] = asyncio.Queue()

    async def _recognize_impl(
        self,
        buffer: utils.AudioBuffer,
        *,
        language: NotGivenOr[str] = NOT_GIVEN,
        conn_options: APIConnectOptions,
    ) -> stt.SpeechEvent:
        raise NotImplementedError("FakeSTT only streams")

    def stream(
        self,
        *,
        language: NotGivenOr[str] = NOT_GIVEN,
        conn_options: APIConnectOptions = DEFAULT_API_CONNECT_OPTIONS,
    ) -> stt.RecognizeStream:
        return FakeSTTStream(self, conn_options=conn_options)

    async def say_user(self, text: str, *, interim_delay: float = 0.05) -> None:
        """Speech start, one interim transcript per word, final transcript, speech end."""
        kind = stt.SpeechEventType
        self.events.put_nowait(_speech_event(kind.START_OF_SPEECH))
        words = text.split(" ")
        for i in range(1, len(words) + 1):
            self.events.put_nowait(_speech_event(kind.INTERIM_TRANSCRIPT, " ".join(words[:i])))
            await asyncio.sleep(interim_delay)
        self.events.put_nowait(_speech_event(kind.FINAL_TRANSCRIPT, text))
        self.events.put_nowait(_speech_event(kind.END_OF_SPEECH))


def _speech_event(kind: stt.SpeechEventType, text: str = "") -> stt.SpeechEvent:
    alternatives = (
        [stt.SpeechData(language=LanguageCode("en"), text=text, confidence=1.0)] if text else []
    )
    return stt.SpeechEvent(type=kind, alternatives=alternatives)


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


class FakeSpeaker(io.AudioOutput):
    """Plays captured audio against the wall clock, like a real sink.

    A segment starts at its first frame and ends when all of it has played (not interrupted) or
    at `clear_buffer()` (interrupted). `first_frame_at` is the `time.monotonic()` of the first
    frame ever captured; `segments` lists what each segment played.
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
        self._segment.pushed += frame.duration

    def flush(self) -> None:
        super().flush()
        segment = self._segment
        if segment is None or segment.flushed:
            return
        segment.flushed = True
        segment.playout = asyncio.create_task(self._play_out(segment))
        self._tasks.add(segment.playout)
        segment.playout.add_done_callback(self._forget)

    def clear_buffer(self) -> None:
        if self._segment is not None:
            self._finish(self._segment, interrupted=True)

    async def aclose(self) -> None:
        """Stop any playout still running (for test teardown)."""
        await utils.aio.cancel_and_wait(*self._tasks)

    async def _play_out(self, segment: _Segment) -> None:
        await asyncio.sleep(max(0.0, segment.started_at + segment.pushed - time.monotonic()))
        self._finish(segment, interrupted=False)

    def _finish(self, segment: _Segment, *, interrupted: bool) -> None:
        if self._segment is not segment:
            return
        self._segment = None
        if interrupted and segment.playout is not None:
            segment.playout.cancel()
        played = min(segment.pushed, time.monotonic() - segment.started_at)
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
) -> AgentSession[None]:
    """An AgentSession with deterministic turn handling and no room, VAD or warm-up.

    With `stt_model` the user's turns end on STT end-of-speech and interim transcripts barge in;
    without, turns are manual (`generate_reply(user_input=...)`).
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
            "preemptive_generation": {"enabled": False},
        },
        aec_warmup_duration=None,
        user_away_timeout=None,
        use_tts_aligned_transcript=aligned_transcript,
    )


async def wait_until(predicate: Callable[[], bool], *, within: float = 5.0) -> None:
    """Poll until `predicate()` holds; fail after `within` seconds."""
    deadline = time.monotonic() + within
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError("condition not reached in time")
        await asyncio.sleep(0.005)


async def wait_for_state(session: AgentSession[Any], state: str, *, within: float = 5.0) -> None:
    """Poll until the agent reaches `state` (e.g. "speaking")."""
    await wait_until(lambda: session.agent_state == state, within=within)
