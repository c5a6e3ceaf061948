"""A fake TTS that speaks like a person and delivers audio like a provider.

`tests/voice/fake_models.py`'s TTS speaks about four times faster than a person and synthesizes
instantly, so livekit's transcript synchronizer always lags it. These fakes speak at a chosen
rate (words per minute; a word lasts in proportion to its letters) and deliver audio at 1x to 5x
real time in uneven chunks after a first-byte latency, like a provider's HTTP stream:

- `SpokenTTS`: non-streaming, no timestamps (like `openai.TTS`); livekit or
  `transcript.sentences` wraps it sentence by sentence;
- `SpokenAlignedTTS`: streaming, consumes text as it arrives and reports word timestamps
  (start and end) ahead of each word's audio, like providers with word alignment.

Both build on livekit's public base classes and record the audio length of every text they
voiced (`spoken`), in order, so a test knows the truth: what had fully played at any position.
"""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass, field
from typing import Never

import numpy as np
from livekit.agents import DEFAULT_API_CONNECT_OPTIONS, APIConnectOptions, tts, utils
from livekit.agents.voice.io import TimedString

SAMPLE_RATE = 24_000


@dataclass(frozen=True, slots=True)
class Voice:
    """How fast the voice speaks and how its audio arrives."""

    words_per_minute: float = 150.0
    delivery: float = 2.0
    """Seconds of audio delivered per second of wall time (1.0 = real time)."""
    first_byte: float = 0.05
    """Seconds before each synthesis delivers its first audio."""
    chunk_seconds: tuple[float, float] = (0.02, 0.25)
    """Range of the uneven audio chunk sizes."""
    seed: int = 0

    def word_samples(self, word: str) -> int:
        """A word lasts in proportion to its letters; the average word takes 60/wpm seconds."""
        letters = sum(char.isalnum() for char in word)
        seconds = 60.0 / self.words_per_minute * (0.4 + 0.13 * letters)
        return max(1, round(seconds * SAMPLE_RATE))


@dataclass(frozen=True, slots=True)
class Spoken:
    """One text voiced by a fake TTS, with the audio length of each of its words."""

    text: str
    word_seconds: tuple[float, ...]


@dataclass(slots=True)
class _Delivery:
    voice: Voice
    rng: random.Random = field(init=False)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.voice.seed)

    async def send(self, samples: int, emit: tts.AudioEmitter) -> None:
        """Push `samples` of tone in uneven chunks, paced at the voice's delivery speed."""
        low, high = self.voice.chunk_seconds
        while samples > 0:
            chunk = min(samples, max(1, round(self.rng.uniform(low, high) * SAMPLE_RATE)))
            await asyncio.sleep(chunk / SAMPLE_RATE / self.voice.delivery)
            emit.push(_tone(chunk))
            samples -= chunk


def _tone(samples: int) -> bytes:
    t = np.arange(samples) / SAMPLE_RATE
    return (np.sin(2 * np.pi * 180.0 * t) * 6000).astype(np.int16).tobytes()


class _SpokenChunkedStream(tts.ChunkedStream):
    def __init__(self, fake: SpokenTTS, *, input_text: str, conn_options: APIConnectOptions):
        super().__init__(tts=fake, input_text=input_text, conn_options=conn_options)
        self._fake = fake

    async def _run(self, output_emitter: tts.AudioEmitter) -> None:
        output_emitter.initialize(
            request_id=utils.shortuuid("spoken_"),
            sample_rate=SAMPLE_RATE,
            num_channels=1,
            mime_type="audio/pcm",
        )
        voice = self._fake.voice
        words = self.input_text.split()
        samples = [voice.word_samples(word) for word in words]
        self._fake.spoken.append(Spoken(self.input_text, tuple(n / SAMPLE_RATE for n in samples)))
        await asyncio.sleep(voice.first_byte)
        await self._fake.delivery.send(sum(samples), output_emitter)
        output_emitter.flush()


class SpokenTTS(tts.TTS[Never]):
    """Non-streaming TTS without timestamps, at a human speaking rate (see module docstring)."""

    def __init__(self, voice: Voice = Voice()) -> None:
        super().__init__(
            capabilities=tts.TTSCapabilities(streaming=False),
            sample_rate=SAMPLE_RATE,
            num_channels=1,
        )
        self.voice = voice
        self.delivery = _Delivery(voice)
        self.spoken: list[Spoken] = []

    def synthesize(
        self, text: str, *, conn_options: APIConnectOptions = DEFAULT_API_CONNECT_OPTIONS
    ) -> tts.ChunkedStream:
        return _SpokenChunkedStream(self, input_text=text, conn_options=conn_options)


class _SpokenAlignedStream(tts.SynthesizeStream):
    def __init__(self, fake: SpokenAlignedTTS, *, conn_options: APIConnectOptions) -> None:
        super().__init__(tts=fake, conn_options=conn_options)
        self._fake = fake
        self._at = 0  # samples of this stream's audio so far
        self._record = Spoken("", ())

    async def _run(self, output_emitter: tts.AudioEmitter) -> None:
        output_emitter.initialize(
            request_id=utils.shortuuid("aligned_"),
            sample_rate=SAMPLE_RATE,
            num_channels=1,
            mime_type="audio/pcm",
            stream=True,
        )
        output_emitter.start_segment(segment_id=utils.shortuuid("seg_"))
        self._fake.spoken.append(self._record)
        pending, started = "", False
        async for data in self._input_ch:
            pending += data if isinstance(data, str) else " "
            *words, pending = pending.split(" ")
            if words and not started:
                started = True
                self._mark_started()
                await asyncio.sleep(self._fake.voice.first_byte)
            for word in filter(None, words):
                await self._say(word, output_emitter)
        if pending.strip():
            await self._say(pending.strip(), output_emitter)
        output_emitter.end_segment()

    async def _say(self, word: str, emit: tts.AudioEmitter) -> None:
        samples = self._fake.voice.word_samples(word)
        start, end = self._at / SAMPLE_RATE, (self._at + samples) / SAMPLE_RATE
        emit.push_timed_transcript(TimedString(word + " ", start_time=start, end_time=end))
        index = len(self._fake.spoken) - 1
        record = self._fake.spoken[index]
        self._fake.spoken[index] = Spoken(
            record.text + word + " ", (*record.word_seconds, samples / SAMPLE_RATE)
        )
        self._at += samples
        await self._fake.delivery.send(samples, emit)


class SpokenAlignedTTS(tts.TTS[Never]):
    """Streaming TTS reporting word timestamps, at a human speaking rate."""

    def __init__(self, voice: Voice = Voice()) -> None:
        super().__init__(
            capabilities=tts.TTSCapabilities(streaming=True, aligned_transcript=True),
            sample_rate=SAMPLE_RATE,
            num_channels=1,
        )
        self.voice = voice
        self.delivery = _Delivery(voice)
        self.spoken: list[Spoken] = []

    def synthesize(
        self, text: str, *, conn_options: APIConnectOptions = DEFAULT_API_CONNECT_OPTIONS
    ) -> tts.ChunkedStream:
        return self._synthesize_with_stream(text, conn_options=conn_options)

    def stream(
        self, *, conn_options: APIConnectOptions = DEFAULT_API_CONNECT_OPTIONS
    ) -> tts.SynthesizeStream:
        return _SpokenAlignedStream(self, conn_options=conn_options)
