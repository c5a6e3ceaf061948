"""Sentence-by-sentence synthesis whose sentence ends travel with the audio.

livekit's `tts.StreamAdapter` (the wrapper every non-streaming TTS gets) synthesizes one sentence
at a time and marks each sentence's start with the summed length of the frames before it. The
end of a sentence is then known only when the next sentence's first frame arrives, which after
the provider's first-byte latency can be well after the sentence finished playing: a caller who
speaks in that pause would lose a sentence they heard completely.

`SentenceEndsAdapter` is that same adapter (same tokenizer, same markup lowering, same metrics)
with one addition: after each sentence's last frame it pushes an empty timed transcript whose
start is the sentence's measured end, just before the adapter flushes, so it rides on the
sentence's final frame. `measurable(tts)` returns what a session should be given so every
interrupted reply can be measured.

What it costs: nothing for a non-streaming TTS (livekit wraps it in the same adapter anyway)
and nothing for a streaming TTS that reports word timestamps (returned untouched, still
streaming). A streaming TTS without timestamps loses its streaming: each sentence is synthesized
once the model has written all of it, so a reply's first audio waits for its first sentence
(figures in docs/performance.md); `transcript.streaming_tts_wrapped` is logged once per TTS.
"""

from __future__ import annotations

from typing import Any, cast

import structlog
from livekit import rtc
from livekit.agents import DEFAULT_API_CONNECT_OPTIONS, APIConnectOptions, tts
from livekit.agents.voice.io import TimedString

log = structlog.get_logger(__name__)


class SentenceEndsAdapter(tts.StreamAdapter):
    """livekit's StreamAdapter plus an end mark after each sentence's audio."""

    def stream(
        self, *, conn_options: APIConnectOptions = DEFAULT_API_CONNECT_OPTIONS
    ) -> tts.StreamAdapterWrapper:
        return _SentenceEndsStream(tts=self, conn_options=conn_options)


def measurable(model: tts.TTS[Any]) -> tts.TTS[Any]:
    """A TTS whose audio frames carry timings: word timestamps as they are, else sentence ends.

    A streaming TTS with word timestamps is returned as it is. A streaming TTS without them is
    synthesized sentence by sentence (through its `synthesize()`), trading its streaming for a
    measurable prefix: turn on its timestamps instead where the provider offers them.
    """
    if model.capabilities.streaming and model.capabilities.aligned_transcript:
        return model
    if isinstance(model, SentenceEndsAdapter):
        return model
    if model.capabilities.streaming:
        log.warning("transcript.streaming_tts_wrapped", tts=model.label)
    return SentenceEndsAdapter(tts=model)


class _SentenceEndsStream(tts.StreamAdapterWrapper):
    async def _run(self, output_emitter: tts.AudioEmitter) -> None:
        await super()._run(cast(tts.AudioEmitter, _EndMarkingEmitter(output_emitter)))


class _EndMarkingEmitter:
    """The adapter's emitter, with an end mark pushed before each flush (one flush a sentence).

    Everything else is the framework's emitter, reached by delegation.
    """

    def __init__(self, emitter: tts.AudioEmitter) -> None:
        self._emitter = emitter
        self._pushed = 0.0

    def push_frame(self, frame: rtc.AudioFrame) -> None:
        self._pushed += frame.duration
        self._emitter.push_frame(frame)

    def flush(self) -> None:
        self._emitter.push_timed_transcript(TimedString("", start_time=self._pushed))
        self._emitter.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._emitter, name)
