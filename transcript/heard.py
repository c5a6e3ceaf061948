"""The definition of heard: which text of an interrupted reply provably finished playing.

A word is heard when its audio has completely played before the cut. The proof comes only from
measurements taken in the audio chain (`transcript.meter`), never from pacing:

- the playback position of each segment (seconds of its audio the sink played);
- the timed transcripts the TTS attached to the frames it sent (livekit's `TimedString`s):
  word timestamps from a TTS with aligned transcripts, or sentence starts from the sentence-by-
  sentence synthesis of a non-streaming TTS (each start is the summed length of the audio frames
  of the sentences before it), plus the end marks `transcript.sentences` adds after each
  sentence's last frame.

A mark's audio ends at its own end time when the TTS reports one; otherwise where the next mark's
audio starts; otherwise, for the last mark, at the end of the segment's audio once all of it was
pushed. A mark whose end is unknown, or later than the playback position, is not heard, and
nothing after it is. The cut sentence therefore contributes nothing unless word timestamps cover
it. A segment counts in full only when every mark was heard and all of its audio was pushed; the
first segment that does not ends the heard text (later segments are never reached).

The transcript synchronizer's text is not used at all: it is a wall-clock estimate that runs
ahead of slow voices and lags behind fast ones, so it can neither prove a word was heard nor be
trusted as a cap (capping by it drops sentences that measurably played).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from transcript.models import Mark, Playback

TOLERANCE = 1e-6
"""Seconds of slack when comparing sums of frame durations (float rounding, never audible)."""


@dataclass(frozen=True, slots=True)
class SegmentHeard:
    text: str
    """The text of the marks heard, trimmed to whole words."""
    whole: bool
    """Every mark was heard and all of the segment's audio was pushed."""


def heard_text(playbacks: Sequence[Playback]) -> str | None:
    """What the caller provably heard of one reply; None when nothing was measured at all."""
    if not any(playback.marks for playback in playbacks):
        return None
    parts: list[str] = []
    for playback in playbacks:
        segment = heard_in(playback)
        parts.append(segment.text)
        if not segment.whole:
            break
    return "".join(parts)


def heard_in(playback: Playback) -> SegmentHeard:
    """The longest run of marks whose audio ended at or before the playback position."""
    marks = playback.marks
    ends = mark_ends(marks, pushed=playback.pushed, audio_complete=playback.audio_complete)
    count = 0
    for end in ends:
        if end is None or end > playback.position + TOLERANCE:
            break
        count += 1
    text = "".join(mark.text for mark in marks[:count])
    following = next((mark.text for mark in marks[count:] if mark.text), None)
    if following is not None and not _at_word_boundary(text, following):
        text = _drop_partial_word(text)
    whole = bool(marks) and count == len(marks) and playback.audio_complete
    return SegmentHeard(text=text, whole=whole)


def mark_ends(marks: Sequence[Mark], *, pushed: float, audio_complete: bool) -> list[float | None]:
    """Where each mark's audio ends, in segment seconds; None when that is not known."""
    ends: list[float | None] = []
    for index, mark in enumerate(marks):
        if mark.end is not None:
            ends.append(mark.end)
        elif index + 1 < len(marks):
            ends.append(marks[index + 1].start)
        else:
            ends.append(pushed if audio_complete else None)
    return ends


def _at_word_boundary(text: str, following: str) -> bool:
    return not text or text[-1].isspace() or following[0].isspace()


def _drop_partial_word(text: str) -> str:
    """A mark that splits a word (character alignment) must not leave half of it."""
    cut = max((i for i, char in enumerate(text) if char.isspace()), default=-1)
    return text[: cut + 1]
