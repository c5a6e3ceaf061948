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
class Playback:
    """One playback-finished report of the audio output for a speech segment."""

    position: float
    """Seconds of the segment pushed to the sink before it ended or was cleared."""
    interrupted: bool
    """The segment was cleared before all of its audio played."""
    synchronized_transcript: str | None
    """The text the transcript synchronizer released; None when no synchronizer was active."""


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
    UNSYNCHRONIZED = "unsynchronized"
    TRANSCRIPT_MISMATCH = "transcript_mismatch"

    @property
    def contributes(self) -> bool:
        return self in (Verdict.COMPLETE, Verdict.PLAYED_PREFIX)
