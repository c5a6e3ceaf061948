"""Held tools: what a person may decide about a tool call its agent holds, and the pure rules.

An agent lists tools under `interrupt_on` (`callmemory.define_agent`): a call of one parks the
turn until a person decides (`approve`, `edit` the arguments, `reject` with a message the model
reads). Everything here is a decision over plain values: whether a call is held, which
decisions a declaration allows, whether a decision is allowed and well formed (edited
arguments checked by the tool's own rules, the ones its runner applies), and what the model
reads for a rejected call. The store of pending decisions is `chat.decisions`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final, Literal, get_args

from chat.toolbox import InvalidArguments, Tool
from memory.contract import CodedError

DecisionKind = Literal["approve", "edit", "reject"]
DECISION_KINDS: Final[tuple[DecisionKind, ...]] = get_args(DecisionKind)
Status = Literal["pending", "approved", "edited", "rejected"]
STATUS_OF: Final[Mapping[DecisionKind, Status]] = {
    "approve": "approved",
    "edit": "edited",
    "reject": "rejected",
}
MAX_MESSAGE_CHARS: Final = 2_000
"""A rejection's message (what the model reads as the tool's error)."""
MAX_ARGUMENTS_CHARS: Final = 100_000
"""Edited arguments, as JSON text (the size of a chat message)."""
REJECTED: Final = "rejected"
DEFAULT_REJECTION: Final = "a person rejected this call; do not try it again"
SESSION_FIELD: Final = "x-stackbone-session"


@dataclass(frozen=True, slots=True)
class Decision:
    """What a person decided: `edit` replaces the model's arguments fully; `reject`'s
    `message` is fed to the model as the tool's error."""

    kind: DecisionKind
    arguments: dict[str, Any] | None = None
    message: str | None = None


@dataclass(frozen=True, slots=True)
class PendingDecision:
    """A parked call as a client is shown it (the rest of the row is the server's)."""

    id: str
    session_id: str
    session_key: str
    agent_id: str
    tool_call_id: str
    tool: str
    arguments: str  # JSON text, as the model wrote it
    allowed: tuple[DecisionKind, ...]
    created_at: datetime


class _Coded(CodedError):
    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message, field=field)


class DecisionPending(_Coded):
    """A new turn on a session whose turn is parked on a decision (409)."""

    code = "decision_pending"

    def __init__(
        self,
        decision_id: str,
        field: str = SESSION_FIELD,
        held: PendingDecision | None = None,
        advice: str = "decide it before sending a new message",
    ) -> None:
        """`field`: what names the session on the caller's wire; `held`: the pending call,
        for a wire that answers it as structured fields (AG-UI)."""
        super().__init__(
            f"{field}: a decision is pending on this session (decision {decision_id}): {advice}",
            field,
        )
        self.decision_id = decision_id
        self.held = held


class DecisionTaken(_Coded):
    """A decision for a call already decided: the loser of a race, or a replay (409)."""

    code = "decision_taken"

    def __init__(self) -> None:
        super().__init__("decision: this call was decided already", "decision")


class DecisionNotFound(_Coded):
    """No decision of that id that this key reaches (404)."""

    code = "decision_not_found"

    def __init__(self) -> None:
        super().__init__("decisionId: no decision with this id", "decisionId")


class HeldNeedsSession(_Coded):
    """A held tool was called on a turn without a session key (400): nothing of the step ran
    and nothing is recorded, because only a session can wait for a person."""

    code = "session_required"

    def __init__(self, tool: str) -> None:
        super().__init__(
            f"{SESSION_FIELD}: the model called {tool}, a tool that waits for a person's"
            " decision, and a turn can wait only on a session: send a session key",
            SESSION_FIELD,
        )


class InvalidDecision(_Coded):
    """A decision the call does not allow, or edited arguments that break the tool's rules."""

    code = "invalid_decision"


def allowed_kinds(declared: Iterable[str] | None) -> frozenset[DecisionKind]:
    """The decisions one held tool allows: None (listed by name only) allows all three."""
    if declared is None:
        return frozenset(DECISION_KINDS)
    kinds = list(declared)
    unknown = [k for k in kinds if k not in DECISION_KINDS]
    if unknown or not kinds:
        raise ValueError(f"each decision must be one of {', '.join(DECISION_KINDS)}")
    return frozenset(k for k in DECISION_KINDS if k in kinds)


def ordered(kinds: Iterable[DecisionKind]) -> tuple[DecisionKind, ...]:
    """Decision kinds in their one order (approve, edit, reject)."""
    given = set(kinds)
    return tuple(k for k in DECISION_KINDS if k in given)


def held_kinds(
    interrupt_on: Mapping[str, frozenset[DecisionKind]], tool: Tool | None
) -> frozenset[DecisionKind] | None:
    """The decisions a call of `tool` waits for, or None when it runs at once (an unknown
    tool, a memory tool or a client's tool is never held)."""
    if tool is None or tool.kind != "agent":
        return None
    return interrupt_on.get(tool.name)


def check_decision(
    decision: Decision, allowed: Iterable[DecisionKind], tool: Tool | None, name: str
) -> str | None:
    """The decision on a call of `name` if it is allowed and well formed; for an edit, the
    edited arguments as JSON text, checked by the tool's own rules (`tool`, None when this
    process no longer has it: its runner then answers `unknown_tool`). `InvalidDecision`
    names the field."""
    allowed = tuple(allowed)
    if decision.kind not in allowed:
        raise InvalidDecision(f"decision: {name} allows {', '.join(allowed)}", "decision")
    if decision.kind != "edit":
        if decision.arguments is not None:
            raise InvalidDecision("arguments: only an edit sends arguments", "arguments")
        if decision.kind == "approve" and decision.message is not None:
            raise InvalidDecision("message: only a rejection sends a message", "message")
        return None
    if decision.arguments is None:
        raise InvalidDecision("arguments: an edit sends the arguments to run with", "arguments")
    if decision.message is not None:
        raise InvalidDecision("message: only a rejection sends a message", "message")
    text = json.dumps(decision.arguments, ensure_ascii=False)
    if len(text) > MAX_ARGUMENTS_CHARS:
        raise InvalidDecision(
            f"arguments: at most {MAX_ARGUMENTS_CHARS} characters as JSON", "arguments"
        )
    if tool is not None and tool.check is not None:
        try:
            tool.check(text)
        except InvalidArguments as problem:
            raise InvalidDecision(f"arguments: {problem}", "arguments") from None
    return text


def rejection(message: str | None) -> str:
    """What the model reads as a rejected call's result."""
    return json.dumps({"error": REJECTED, "message": message or DEFAULT_REJECTION})
