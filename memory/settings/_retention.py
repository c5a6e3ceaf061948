"""How long an agent keeps each kind of record, as plain values: the kinds, the limits of a
days value, and the parsing of a retention request.

Each kind is kept `days` days after it was written (its last use for a chat session), or until
it is deleted when `days` is None (the default). Facts are not a kind: a fact is what the
caller said and stays until the person erases it or a later conversation changes it; a clock
must not make an agent forget that a caller is allergic to penicillin. Their closed versions
are bounded by count instead (`MAX_HISTORY_VERSIONS`).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Annotated, Final, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from memory.settings._agent_settings import problem

RetentionKind = Literal["calls", "sessions", "ops", "reads", "journals"]
RETENTION_KINDS: Final[tuple[RetentionKind, ...]] = get_args(RetentionKind)
MIN_RETENTION_DAYS: Final = 1
MAX_RETENTION_DAYS: Final = 36_500
DAYS_RULE: Final = (
    f"must be a whole number of days from {MIN_RETENTION_DAYS} to {MAX_RETENTION_DAYS:,},"
    " or null to keep until deleted"
)
Days = Annotated[int, Field(ge=MIN_RETENTION_DAYS, le=MAX_RETENTION_DAYS)]


@dataclass(frozen=True, slots=True)
class Retention:
    """Days each kind is kept (None: until deleted): call records, chat sessions with their
    turns and decisions, ops events, read records, call journals."""

    calls: int | None = None
    sessions: int | None = None
    ops: int | None = None
    reads: int | None = None
    journals: int | None = None

    def days(self, kind: RetentionKind) -> int | None:
        value: int | None = getattr(self, kind)
        return value

    def bounded(self) -> tuple[tuple[RetentionKind, int], ...]:
        """The kinds with a limit, and their days."""
        return tuple((k, d) for k in RETENTION_KINDS if (d := self.days(k)) is not None)


KEEP_ALL: Final = Retention()
assert tuple(f.name for f in fields(Retention)) == RETENTION_KINDS


@dataclass(frozen=True, slots=True)
class RetentionUpdate:
    """A validated retention PUT: the kinds it sets (a kind not named keeps its value)."""

    values: Retention
    given: tuple[RetentionKind, ...]

    def applied_to(self, current: Retention) -> Retention:
        days = {
            k: self.values.days(k) if k in self.given else current.days(k) for k in RETENTION_KINDS
        }
        return Retention(**days)

    def field_names(self) -> tuple[str, ...]:
        """The names of what changed, for the activity log (`retention.calls`, ...)."""
        return tuple(f"retention.{kind}" for kind in self.given)


class RetentionBody(BaseModel):
    """Any subset of the kinds: days (1..36,500), or null to keep until deleted."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    calls: Days | None = None
    sessions: Days | None = None
    ops: Days | None = None
    reads: Days | None = None
    journals: Days | None = None


def parse_retention(body: object) -> RetentionUpdate:
    """Validate a retention PUT; the first problem names its field and rule."""
    try:
        parsed = RetentionBody.model_validate(body)
    except ValidationError as exc:
        error = exc.errors(include_url=False)[0]
        field = ".".join(str(part) for part in error["loc"]) or "body"
        if error["type"] == "extra_forbidden":
            raise problem(field, "is not a known field") from None
        if field == "body":
            raise problem(field, "must be a JSON object") from None
        raise problem(field, DAYS_RULE) from None
    given = tuple(k for k in RETENTION_KINDS if k in parsed.model_fields_set)
    values = Retention(**{k: getattr(parsed, k) for k in RETENTION_KINDS})
    return RetentionUpdate(values, given)
