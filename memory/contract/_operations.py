"""Validation of the model's answer and the plan it turns into.

The answer is checked completely before anything is written: shape, handles, limits,
uniqueness. Any violation raises `InvalidModelOutput` naming the rule (never the text), and
nothing is written.

A fact or summary holding a NUL or a lone surrogate is what the model said: it is kept as it
is (not normalised), escaped only where Postgres stores it (`memory.store.stored_text`) and read
back exactly. Limits count the model's characters, not the escaped ones. Keys holding either
are still refused (no key of the answer can hold one).

Two facts are duplicates when they are equal after Unicode NFKC normalisation, case folding,
collapsing runs of whitespace and dropping trailing sentence punctuation (so "Prefers  Email."
and "prefers email" are the same fact).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from memory.contract import _limits as limits
from memory.contract import _strict_json as strict_json
from memory.contract._errors import InvalidModelOutput
from memory.contract._models import Fact, Utterance
from memory.contract._provenance import OpNote, op_note

MAX_OPERATIONS = 200


class _Operation(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    op: Literal["add", "update", "delete"]
    handle: str | None
    content: str | None
    # what the model says of the op: read tolerantly (`memory.contract._provenance`), so a
    # missing or bad value never refuses the answer
    kind: Any = None
    confidence: Any = None
    evidence: Any = None
    reason: Any = None


class _Answer(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    operations: list[_Operation]
    summary: str


@dataclass(frozen=True, slots=True)
class Plan:
    """What one validated answer does: fact ids to delete, (id, content) to update, new texts;
    the notes say what the model said of each (aligned with deletes, updates and adds)."""

    deletes: tuple[str, ...]
    updates: tuple[tuple[str, str], ...]
    adds: tuple[str, ...]
    summary: str
    delete_notes: tuple[OpNote, ...] = ()
    update_notes: tuple[OpNote, ...] = ()
    add_notes: tuple[OpNote, ...] = ()

    def note(self, change: str, index: int) -> OpNote:
        notes = {"delete": self.delete_notes, "update": self.update_notes, "add": self.add_notes}
        kept = notes[change]
        return kept[index] if index < len(kept) else OpNote()


def duplicate_key(content: str) -> str:
    folded = " ".join(unicodedata.normalize("NFKC", content).casefold().split())
    return folded.rstrip(".!?;:, ")


def _invalid(rule: str) -> InvalidModelOutput:
    return InvalidModelOutput(f"model output rejected: {rule}")


def parse_answer(raw: str | None) -> _Answer:
    if raw is None:
        raise _invalid("the response had no content")
    try:
        data = strict_json.loads(raw, model_text=True)
    except strict_json.JsonRejected as rejected:
        # the rule only: a path could quote keys the model wrote
        raise _invalid(f"the response JSON was refused: {rejected.rule}") from None
    try:
        answer = _Answer.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "answer"
        raise _invalid(f"{where}: {first['type']}") from None
    if len(answer.operations) > MAX_OPERATIONS:
        raise _invalid(f"more than {MAX_OPERATIONS} operations")
    return answer


def _content(value: str | None, where: str) -> str:
    if value is None or not value.strip():
        raise _invalid(f"{where}: content must be a non-empty string")
    text = value.strip()
    if len(text) > limits.MAX_FACT_CHARS:
        raise _invalid(f"{where}: content longer than {limits.MAX_FACT_CHARS} characters")
    return text


def _note(op: _Operation, transcript: Sequence[Utterance]) -> OpNote:
    reason = op.reason if op.op == "delete" else None
    return op_note(
        transcript, kind=op.kind, confidence=op.confidence, evidence=op.evidence, reason=reason
    )


def plan(
    raw: str | None, handles: Mapping[str, Fact], transcript: Sequence[Utterance] = ()
) -> Plan:
    """Validate the raw answer against the handles shown to the model and return its plan;
    each op's evidence is kept only when `transcript` (what was sent) holds it."""
    answer = parse_answer(raw)
    deletes: list[str] = []
    updates: list[tuple[str, str]] = []
    adds: list[str] = []
    notes: dict[str, list[OpNote]] = {"add": [], "update": [], "delete": []}
    touched: set[str] = set()
    for i, op in enumerate(answer.operations):
        where = f"operations.{i}"
        if op.op == "add":
            if op.handle is not None:
                raise _invalid(f"{where}: add must not name a handle")
            adds.append(_content(op.content, where))
            notes["add"].append(_note(op, transcript))
            continue
        if op.handle is None or op.handle not in handles:
            raise _invalid(f"{where}: unknown handle")
        if op.handle in touched:
            raise _invalid(f"{where}: handle used more than once")
        touched.add(op.handle)
        fact_id = handles[op.handle].id
        if op.op == "delete":
            if op.content is not None:
                raise _invalid(f"{where}: delete must not carry content")
            deletes.append(fact_id)
        else:
            updates.append((fact_id, _content(op.content, where)))
        notes[op.op].append(_note(op, transcript))
    summary = _summary(answer.summary)
    kept = [f.content for h, f in handles.items() if h not in touched]
    _check_result(kept + [c for _, c in updates] + adds)
    return Plan(
        tuple(deletes),
        tuple(updates),
        tuple(adds),
        summary,
        tuple(notes["delete"]),
        tuple(notes["update"]),
        tuple(notes["add"]),
    )


def _summary(value: str) -> str:
    text = value.strip()
    if not text:
        raise _invalid("summary must not be empty")
    if len(text) > limits.MAX_SUMMARY_CHARS:
        raise _invalid(f"summary longer than {limits.MAX_SUMMARY_CHARS} characters")
    return text


def _check_result(contents: list[str]) -> None:
    if len(contents) > limits.MAX_FACTS:
        raise _invalid(f"more than {limits.MAX_FACTS} facts after the update")
    keys = [duplicate_key(c) for c in contents]
    if len(set(keys)) != len(keys):
        raise _invalid("the resulting facts contain duplicates")
