"""Where a fact version came from (`Source`), and the pure rules that decide what of the model's
word about it is kept.

A source names the channel and the call, session or run of the write, the writer (the agent,
the job, the API key's name), the extraction model, and what the model said about the fact:
its `kind`, its `confidence` and its `evidence`, a short quote from the conversation.

The model's word is data to check, never to trust:
- `evidence` is kept only when it occurs in the transcript that was sent, compared after
  normalising both (`normalised`: Unicode NFKC, case folding, whitespace runs as one space,
  quotes and ellipses around the quote dropped). A quote the transcript does not hold is
  dropped, never stored; so is one longer than `MAX_EVIDENCE_CHARS`. The turns a fact was
  drawn from are the messages the quote was found in.
- `kind` is kept when it is one of `KINDS`, `confidence` when it is a number from 0 to 1, a
  delete's `reason` when it is text of at most `MAX_REASON_CHARS`. Anything else reads as
  absent: a bad value never fails the write.

Rows written before provenance (migration 0030) have no source: they read as `UNKNOWN`, whose
channel is `"unknown"`.
"""

from __future__ import annotations

import json
import math
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final, Protocol


class Utterance(Protocol):
    """A line of the transcript sent to the model, as evidence is looked for in it
    (`memory.contract.Utterance` is one; a protocol keeps this module below `_models`)."""

    @property
    def text(self) -> str: ...


UNKNOWN_CHANNEL: Final = "unknown"
MAX_EVIDENCE_CHARS: Final = 300
MAX_REASON_CHARS: Final = 200
KINDS: Final = frozenset(
    {"identity", "preference", "contact", "schedule", "health", "relationship", "account", "other"}
)
_AROUND = " \"'`“”‘’«»….,;:!?"


@dataclass(frozen=True, slots=True)
class Writer:
    """Who wrote: the agent, the job (a voice or LiveKit text call) and the API key's name."""

    agent: str | None = None
    job: str | None = None
    key: str | None = None


@dataclass(frozen=True, slots=True)
class Source:
    """One fact version's provenance; `turns` are positions in the conversation (0-based)."""

    channel: str = UNKNOWN_CHANNEL
    call_id: str | None = None
    session_id: str | None = None
    turns: tuple[int, ...] = ()
    writer: Writer = field(default_factory=Writer)
    model: str | None = None
    evidence: str | None = None
    kind: str | None = None
    confidence: float | None = None


UNKNOWN: Final = Source()


@dataclass(frozen=True, slots=True)
class OpNote:
    """What the model said about one operation, as kept: `reason` only for a delete; `turns`
    are the positions, in the content sent, of the messages holding the evidence."""

    kind: str | None = None
    confidence: float | None = None
    evidence: str | None = None
    reason: str | None = None
    turns: tuple[int, ...] = ()


NO_NOTE: Final = OpNote()


def op_note(
    transcript: Sequence[Utterance],
    *,
    kind: object,
    confidence: object,
    evidence: object,
    reason: object = None,
) -> OpNote:
    """What is kept of the model's word about one operation (see the module's rules)."""
    quote, turns = found_evidence(evidence, transcript)
    return OpNote(kept_kind(kind), kept_confidence(confidence), quote, kept_reason(reason), turns)


def normalised(text: str) -> str:
    """Text as evidence is compared: NFKC, case-folded, whitespace runs as one space."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def found_evidence(
    quote: object, transcript: Sequence[Utterance]
) -> tuple[str | None, tuple[int, ...]]:
    """The quote as kept (stripped) and the messages holding it; (None, ()) when it is not
    text, too long, empty once trimmed, or not in the transcript."""
    if not isinstance(quote, str) or len(quote) > MAX_EVIDENCE_CHARS:
        return None, ()
    needle = normalised(quote).strip(_AROUND)
    if not needle:
        return None, ()
    turns = tuple(i for i, u in enumerate(transcript) if needle in normalised(u.text))
    return (quote.strip(), turns) if turns else (None, ())


def kept_kind(value: object) -> str | None:
    return value if isinstance(value, str) and value in KINDS else None


def kept_confidence(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return number if math.isfinite(number) and 0.0 <= number <= 1.0 else None


def kept_reason(value: object) -> str | None:
    if not isinstance(value, str) or len(value) > MAX_REASON_CHARS or not value.strip():
        return None
    return value.strip()


def source_json(source: Source) -> dict[str, Any]:
    """The source as stored and answered (every key, null when unknown)."""
    w = source.writer
    return {
        "channel": source.channel,
        "call_id": source.call_id,
        "session_id": source.session_id,
        "turns": list(source.turns),
        "writer": {"agent": w.agent, "job": w.job, "key": w.key},
        "model": source.model,
        "evidence": source.evidence,
        "kind": source.kind,
        "confidence": source.confidence,
    }


def source_of(stored: object) -> Source:
    """A stored source (JSON text or an object) read tolerantly; None or junk is `UNKNOWN`.

    A recall decodes one per fact before a greeting, so this avoids helper calls and ABC
    checks: a value of the wrong type reads as absent."""
    data: object = stored
    if isinstance(stored, str):
        try:
            data = json.loads(stored)
        except ValueError:
            return UNKNOWN
    if type(data) is not dict:
        return UNKNOWN
    get = data.get
    w = get("writer")
    if type(w) is not dict:
        w = {}
    turns, kind, confidence = get("turns"), get("kind"), get("confidence")
    channel, call_id, session_id = get("channel"), get("call_id"), get("session_id")
    agent, job, key = w.get("agent"), w.get("job"), w.get("key")
    model, evidence = get("model"), get("evidence")
    return Source(
        channel if type(channel) is str else UNKNOWN_CHANNEL,
        call_id if type(call_id) is str else None,
        session_id if type(session_id) is str else None,
        tuple(t for t in turns if type(t) is int) if type(turns) is list and turns else (),
        Writer(
            agent if type(agent) is str else None,
            job if type(job) is str else None,
            key if type(key) is str else None,
        ),
        model if type(model) is str else None,
        evidence if type(evidence) is str else None,
        kind if type(kind) is str and kind in KINDS else None,
        None if confidence is None else kept_confidence(confidence),
    )


def write_source(
    agent_id: str,
    *,
    channel: str | None,
    call_id: str | None,
    session_id: str | None,
    job: str | None,
    key: str | None,
    model: str | None,
) -> Source:
    """The source of one write, before what the model said of each op."""
    return Source(
        channel=channel or UNKNOWN_CHANNEL,
        call_id=call_id,
        session_id=session_id,
        writer=Writer(agent_id, job, key),
        model=model or None,
    )


def op_source(write: Source, note: OpNote, first_turn: int = 0) -> Source:
    """One op's source: the write's, with the note's kind, confidence and evidence, and the
    evidence's turns counted from `first_turn` (the content's place in the conversation)."""
    return replace(
        write,
        turns=tuple(first_turn + t for t in note.turns),
        evidence=note.evidence,
        kind=note.kind,
        confidence=note.confidence,
    )
