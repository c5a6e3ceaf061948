"""Held tools over AG-UI: the interrupt a parked run ends with, and the decision a resuming
run's `resume` entry carries. Pure: plain values in, `ag-ui-protocol` models or a `Decision` out.

A held call ends the run with `RUN_FINISHED` `outcome: interrupt`, one `Interrupt` whose id is
the pending decision's, `reason: "tool_call"`, the held call's `toolCallId`, the answer's shape
(`responseSchema`: `approved`, `editedArgs`, `message`) and `metadata` `{tool, allowed}`.
The next run answers it with one `resume` entry: `resolved` with `approved: true` approves
(with `editedArgs`: edits, the arguments replaced whole), `approved: false` rejects (with
`message` fed to the model), `cancelled` rejects. A session parks on one call at a time, so a
resume has exactly one entry; its `metadata` is not read.
"""

from __future__ import annotations

from typing import Any, Final

from ag_ui.core import Interrupt, ResumeEntry, RunFinishedInterruptOutcome

from chat import Decision, PendingDecision
from chat.held import MAX_MESSAGE_CHARS
from memory.contract import InvalidRequest

RESPONSE_SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
    "required": ["approved"],
    "properties": {
        "approved": {"type": "boolean"},
        "editedArgs": {"type": "object"},
        "message": {"type": "string", "maxLength": MAX_MESSAGE_CHARS},
    },
}


def interrupted(held: PendingDecision) -> RunFinishedInterruptOutcome:
    interrupt = Interrupt(
        id=held.id,
        reason="tool_call",
        tool_call_id=held.tool_call_id,
        response_schema=RESPONSE_SCHEMA,
        metadata={"tool": held.tool, "allowed": list(held.allowed)},
    )
    return RunFinishedInterruptOutcome(interrupts=[interrupt])


def _problem(field: str, rule: str) -> InvalidRequest:
    return InvalidRequest(f"{field}: {rule}", field=field)


def _message(payload: dict[str, Any]) -> str | None:
    message = payload.get("message")
    if message is None:
        return None
    if not isinstance(message, str) or not 1 <= len(message) <= MAX_MESSAGE_CHARS:
        rule = f"must be a string of 1 to {MAX_MESSAGE_CHARS} characters"
        raise _problem("resume[0].payload.message", rule)
    return message


def decision_of(entries: tuple[ResumeEntry, ...]) -> tuple[str, Decision]:
    """The decision id and the decision a run's `resume` carries."""
    if len(entries) != 1:
        raise _problem("resume", "must have exactly one entry: a thread waits on one interrupt")
    entry = entries[0]
    payload = entry.payload if entry.payload is not None else {}
    if not isinstance(payload, dict):
        raise _problem("resume[0].payload", "must be an object")
    message = _message(payload)
    if entry.status == "cancelled":
        return entry.interrupt_id, Decision("reject", message=message)
    approved = payload.get("approved")
    if not isinstance(approved, bool):
        raise _problem("resume[0].payload.approved", "must be true or false")
    if not approved:
        return entry.interrupt_id, Decision("reject", message=message)
    edited = payload.get("editedArgs")
    if edited is None:
        return entry.interrupt_id, Decision("approve")
    if not isinstance(edited, dict):
        raise _problem("resume[0].payload.editedArgs", "must be an object")
    return entry.interrupt_id, Decision("edit", arguments=edited)
