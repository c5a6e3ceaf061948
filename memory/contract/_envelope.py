"""The public result envelope: data or error, never both."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

from memory.contract._errors import MemoryFailure

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class ErrorInfo:
    code: str
    message: str
    field: str | None = None


@dataclass(frozen=True, slots=True)
class Result(Generic[T]):
    data: T | None
    error: ErrorInfo | None

    @classmethod
    def ok(cls, data: T) -> Result[T]:
        return cls(data=data, error=None)

    @classmethod
    def failed(cls, failure: MemoryFailure) -> Result[T]:
        return cls(data=None, error=ErrorInfo(failure.code, failure.message, failure.field))
