"""Fake STT, LLM and TTS for driving a real AgentSession without a LiveKit server or provider.

Everything subclasses livekit-agents' public base classes, so the framework runs its own
scheduling, interruption and transcript-synchronisation code against them. Audio is silent or a
tone and plays against the wall clock, so tests that measure "what was heard" see real timing.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Never

import numpy as np
from livekit import rtc
from livekit.agents import (
    DEFAULT_API_CONNECT_OPTIONS,
    NOT_GIVEN,
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
        # like a provider streaming usage last: a word per token, the context's text for prompt
        prompt = sum(len(str(item.text_content or "").split()) for item in self._messages())
        usage = llm.CompletionUsage(
            completion_tokens=len(words), prompt_tokens=prompt, total_tokens=prompt + len(words)
        )
        self._event_ch.send_nowait(llm.ChatChunk(id=request_id, usage=usage))

    def _messages(self) -> list[llm.ChatMessage]:
        return [item for item in self._chat_ctx.items if isinstance(item, llm.ChatMessage)]


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
