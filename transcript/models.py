"""Plain values observed during a call, and the transcript saved from them.

The recorder turns livekit events into these values; the assembly reads only these values, so
the rule for what the caller heard is tested with tables, without a session.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Literal, TypedDict

TurnRole = Literal["user", "assistant"]
SpeechSource = Literal["say", "generate_reply"]


class Message(TypedDict):
    """One OpenAI-shaped chat message, the form `memory.add` takes as content."""

    role: TurnRole
    content: str


@dataclass(frozen=True, slots=True)
class Mark:
    """One timed transcript the TTS attached to the audio of a segment (livekit's TimedString).

    Times are seconds into the segment's audio, the time base of the playback position.
    """

    text: str
    start: float | None = None
    """Where the text's audio begins, when the TTS says (sentence starts, word starts)."""
    end: float | None = None
    """Where the text's audio ends, when the TTS says (word timestamps)."""
    arrived_at: float = 0.0
    """Seconds of the segment's audio already pushed when the frame carrying it arrived."""


@dataclass(frozen=True, slots=True)
class Playback:
    """One audio segment as measured in the output chain, reported when its playback ended."""

    position: float
    """Seconds of the segment played before it ended or was cleared (the sink's report)."""
    interrupted: bool
    """The segment was cleared before all of its audio played."""
    synchronized_transcript: str | None = None
    """The text the transcript synchronizer released (pacing, kept for diagnosis only)."""
    marks: tuple[Mark, ...] = ()
    """Timed transcripts carried by the segment's frames, in arrival order."""
    pushed: float = 0.0
    """Seconds of audio pushed into the chain for this segment."""
    audio_complete: bool = False
    """All of the segment's audio was pushed: its source ended, not cancelled or truncated."""


@dataclass(frozen=True, slots=True)
class Speech:
    """How an assistant message was spoken: the facts needed to trust an interrupted reply."""

    source: SpeechSource | None
    """`say` or `generate_reply`; None when the speech was never seen being created."""
    interrupted: bool
    """The speech handle was interrupted (barge-in, `interrupt()`, or the session closing)."""
    synthesized: bool
    """The audio came from the TTS; False when `say()` was given pre-recorded audio."""
    playbacks: tuple[Playback, ...] = ()
    """Playback reports for this message, oldest first."""


@dataclass(frozen=True, slots=True)
class Turn:
    """One committed user or assistant message, in the order the session committed it."""

    role: TurnRole
    text: str
    """The committed text as heard (expressive markup removed)."""
    interrupted: bool = False
    """The framework's flag on the message (also set when the TTS failed mid-reply)."""
    speech: Speech | None = None
    """For assistant messages: how it was spoken, when known."""
    raw_text: str | None = None
    """The committed text exactly as stored, when it differs from `text`."""


class Verdict(StrEnum):
    """Whether, and why, a turn contributes to the saved transcript."""

    COMPLETE = "complete"
    PLAYED_PREFIX = "played_prefix"
    EMPTY = "empty"
    SPEECH_UNKNOWN = "speech_unknown"
    CUT_WITHOUT_INTERRUPTION = "cut_without_interruption"
    PRERECORDED_AUDIO = "prerecorded_audio"
    NOT_PLAYED = "not_played"
    UNMEASURED = "unmeasured"
    NOTHING_FINISHED = "nothing_finished"

    @property
    def contributes(self) -> bool:
        return self in (Verdict.COMPLETE, Verdict.PLAYED_PREFIX)


@dataclass(frozen=True, slots=True)
class Judgement:
    """A turn's verdict and the text it contributes ("" when it contributes nothing)."""

    verdict: Verdict
    text: str
