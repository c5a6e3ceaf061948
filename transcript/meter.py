"""A pass-through audio output that measures what each segment carried and how far it played.

Placed at the head of the session's audio chain (above RoomIO's transcript synchronizer and
sink), it sees the frames exactly as the TTS node produced them. For each segment (first frame
to `flush()`/`clear_buffer()`, the framework's unit of playback) it keeps:

- the timed transcripts on the frames (`frame.userdata["lk.timed_transcripts"]`), each with how
  much of the segment's audio had been pushed when it arrived;
- the seconds of audio pushed;
- whether all of the segment's audio was pushed: livekit's audio forwarder flushes when its
  source ends, and on cancellation flushes and clears in the same step, and calls
  `_mark_input_truncated()` before flushing when the TTS failed;
- the sink's playback position from its `playback_finished` report.

The report is handed to `on_playback` as a `transcript.models.Playback` before the event reaches
the framework, so the producing speech is still current. Frames pass through untouched; the
meter is never the reason audio is delayed, dropped or reordered.

Limit: when the TTS's sample rate differs from the sink's, livekit resamples before the head of
the chain, which drops frame data; those segments carry no marks and prove nothing.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from livekit import rtc
from livekit.agents import utils
from livekit.agents.types import USERDATA_TIMED_TRANSCRIPT
from livekit.agents.voice import io

from transcript.models import Mark, Playback

PlaybackSink = Callable[[Playback], None]


@dataclass(slots=True)
class _Segment:
    marks: list[Mark] = field(default_factory=list)
    pushed: float = 0.0
    flushed: bool = False
    settled: bool = False
    """A loop step has passed since the flush, so a clear can no longer mean cancellation."""
    cut_short: bool = False

    def take(self, frame: rtc.AudioFrame) -> None:
        for timed in frame.userdata.get(USERDATA_TIMED_TRANSCRIPT) or ():
            if isinstance(timed, io.TimedString):
                self.marks.append(
                    Mark(
                        text=str(timed),
                        start=timed.start_time if utils.is_given(timed.start_time) else None,
                        end=timed.end_time if utils.is_given(timed.end_time) else None,
                        arrived_at=self.pushed,
                    )
                )
        self.pushed += frame.duration

    def settle(self) -> None:
        self.settled = True

    def report(self, ev: io.PlaybackFinishedEvent) -> Playback:
        return Playback(
            position=ev.playback_position,
            interrupted=ev.interrupted,
            synchronized_transcript=ev.synchronized_transcript,
            marks=tuple(self.marks),
            pushed=self.pushed,
            audio_complete=self.flushed and not self.cut_short,
        )


class PlayoutMeter(io.AudioOutput):
    """Measures each audio segment on its way to `next_in_chain` (see the module docstring)."""

    def __init__(self, next_in_chain: io.AudioOutput, on_playback: PlaybackSink) -> None:
        super().__init__(
            label="PlayoutMeter",
            capabilities=io.AudioOutputCapabilities(pause=True),
            next_in_chain=next_in_chain,
        )
        self.wrapped = next_in_chain
        """The output this meter was placed above (what the chain's head was before)."""
        self._on_playback: PlaybackSink | None = on_playback
        self._segments: deque[_Segment] = deque()
        self.on("playback_finished", self._on_finished)

    @property
    def sample_rate(self) -> int | None:
        return self._downstream.sample_rate

    @property
    def _downstream(self) -> io.AudioOutput:
        assert self.next_in_chain is not None
        return self.next_in_chain

    def stop_reporting(self) -> None:
        """Keep passing audio through, but report nothing more."""
        self._on_playback = None

    async def capture_frame(self, frame: rtc.AudioFrame) -> None:
        await super().capture_frame(frame)
        if not self._segments or self._segments[-1].flushed:
            self._segments.append(_Segment())
        self._segments[-1].take(frame)
        await self._downstream.capture_frame(frame)

    def flush(self) -> None:
        super().flush()
        if self._segments and not self._segments[-1].flushed:
            segment = self._segments[-1]
            segment.flushed = True
            asyncio.get_running_loop().call_soon(segment.settle)
        self._downstream.flush()

    def clear_buffer(self) -> None:
        if self._segments:
            segment = self._segments[-1]
            if not segment.flushed or not segment.settled:
                segment.cut_short = True  # the forwarder was cancelled mid-segment
        self._downstream.clear_buffer()

    def _mark_input_truncated(self) -> None:
        if self._segments and not self._segments[-1].flushed:
            self._segments[-1].cut_short = True  # the TTS failed before covering its text
        super()._mark_input_truncated()

    def _on_finished(self, ev: io.PlaybackFinishedEvent) -> None:
        segment = self._segments.popleft() if self._segments else _Segment()
        if self._on_playback is not None:
            self._on_playback(segment.report(ev))
