"""Typed failures: the one base every coded failure derives from, and the memory core's own.

`CodedError` is the base of every failure that carries a public error code, in every room
(memory, documents, chat, sip, the web layer): its `code`, a `message` that names fields and
rules (never user content) and the `field` it is about. Code inside `memory/` raises the
`MemoryFailure`s; the public API (`memory.api`) turns them into result envelopes (and
`failure_of` back), and the HTTP layer translates any `CodedError` by its code, once.
"""

from __future__ import annotations

from typing import ClassVar


class CodedError(Exception):
    """Base of every failure with a public error code: `code`, `message` (fields and rules,
    never user content) and the `field` it is about (None: the request as a whole)."""

    code: ClassVar[str] = "internal_error"

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field


class MemoryFailure(CodedError):
    """Base of every memory failure; `code` is the public error code."""

    code: ClassVar[str] = "memory_failure"


class InvalidRequest(MemoryFailure):
    code = "memory_invalid_request"


class ModelFailed(MemoryFailure):
    code = "memory_model_failed"


class InvalidModelOutput(MemoryFailure):
    code = "memory_invalid_model_output"


class Conflict(MemoryFailure):
    code = "memory_conflict"


class PersistFailed(MemoryFailure):
    code = "memory_persist_failed"


class SchemaMissing(MemoryFailure):
    code = "memory_schema_missing"


class Unavailable(MemoryFailure):
    code = "memory_unavailable"


class CapabilityUnavailable(MemoryFailure):
    code = "capability_unavailable"


class CursorExpired(MemoryFailure):
    """The ops log's events after a cursor were partly deleted by retention.

    `resume_after` is the highest id retention deleted for that agent: reading after it gives
    every event that is left, once the consumer has reconciled from the memory itself.
    """

    code = "cursor_expired"

    def __init__(self, after: int, resume_after: int) -> None:
        super().__init__(
            f"after: events after {after} were deleted by the ops log's retention"
            f" (up to id {resume_after}); reconcile from the memory itself, then read"
            f" after={resume_after}",
            field="after",
        )
        self.resume_after = resume_after


FAILURES: tuple[type[MemoryFailure], ...] = (
    InvalidRequest,
    ModelFailed,
    InvalidModelOutput,
    Conflict,
    PersistFailed,
    SchemaMissing,
    Unavailable,
    CapabilityUnavailable,
    CursorExpired,
)
"""The memory core's failures, one per public code."""
ERROR_CODES: tuple[str, ...] = tuple(failure.code for failure in FAILURES)
