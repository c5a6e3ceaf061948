"""A streaming TTS: audio for each piece of text as it arrives, after a first-byte latency.

Like a provider's websocket TTS: the first audio of a stream comes `first_byte` seconds after
its first text, then each piece's audio follows as soon as the piece arrives. With `aligned`,
each piece's audio carries its word timestamps (livekit's `TimedString`s), as a provider's
TTS does with timestamps turned on; without, it carries none.
"""

from __future__ import annotations

import asyncio
from typing import Never

from livekit.agents import DEFAULT_API_CONNECT_OPTIONS, APIConnectOptions, tts, utils
from livekit.agents.voice import io

from testkit.fake_models import SAMPLE_RATE, SECONDS_PER_CHAR, pcm


class FakeStreamingTTS(tts.TTS[Never]):
    """Streaming TTS with a first-byte latency; word timestamps only when `aligned`."""

    def __init__(
        self,
        *,
        first_byte: float = 0.15,
        aligned: bool = False,
        seconds_per_char: float = SECONDS_PER_CHAR,
    ) -> None:
        super().__init__(
            capabilities=tts.TTSCapabilities(streaming=True, aligned_transcript=aligned),
            sample_rate=SAMPLE_RATE,
            num_channels=1,
        )
        self.first_byte = first_byte
        self.aligned = aligned
        self.seconds_per_char = seconds_per_char
        self.streams = 0
        """Streams opened: one per reply when streamed, one per sentence when wrapped."""

    def synthesize(
        self, text: str, *, conn_options: APIConnectOptions = DEFAULT_API_CONNECT_OPTIONS
    ) -> tts.ChunkedStream:
        return self._synthesize_with_stream(text, conn_options=conn_options)

    def stream(
        self, *, conn_options: APIConnectOptions = DEFAULT_API_CONNECT_OPTIONS
    ) -> tts.SynthesizeStream:
        self.streams += 1
        return _Stream(self, conn_options=conn_options)


class _Stream(tts.SynthesizeStream):
    def __init__(self, fake: FakeStreamingTTS, *, conn_options: APIConnectOptions) -> None:
        super().__init__(tts=fake, conn_options=conn_options)
        self._fake = fake

    async def _run(self, output_emitter: tts.AudioEmitter) -> None:
        output_emitter.initialize(
            request_id=utils.shortuuid("fakestream_"),
            sample_rate=SAMPLE_RATE,
            num_channels=1,
            mime_type="audio/pcm",
            stream=True,
        )
        output_emitter.start_segment(segment_id=utils.shortuuid("seg_"))
        first, start = True, 0.0
        async for data in self._input_ch:
            if not isinstance(data, str) or not data:
                continue  # a flush: this fake has nothing buffered
            if first:
                await asyncio.sleep(self._fake.first_byte)
                self._mark_started()
                first = False
            seconds = len(data) * self._fake.seconds_per_char
            if self._fake.aligned:
                output_emitter.push_timed_transcript(
                    io.TimedString(data, start_time=start, end_time=start + seconds)
                )
            output_emitter.push(pcm(seconds))
            start += seconds
        output_emitter.end_segment()
