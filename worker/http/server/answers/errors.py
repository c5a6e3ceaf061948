"""The error answers (`worker.http.server.errors` builds them from a failure): ours, which every
route may give, with OpenAI's own `type` and `param` on the OpenAI-compatible wire, and
Anthropic's envelope on the Anthropic Messages wire."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, Self

from worker.http.server.answers.base import Answer, WireAnswer

if TYPE_CHECKING:
    from chat import PendingDecision


class HeldCall(Answer):
    """The call a `decision_pending` refusal waits on, on the AG-UI wire: the decision's id
    (the interrupt's), the held call's id, its tool and arguments (JSON text, as the model
    wrote them) and the decisions it allows."""

    id: str
    tool_call_id: str
    tool: str
    arguments: str
    allowed: list[Literal["approve", "edit", "reject"]]

    @classmethod
    def of(cls, held: PendingDecision) -> Self:
        return cls(
            id=held.id,
            tool_call_id=held.tool_call_id,
            tool=held.tool,
            arguments=held.arguments,
            allowed=list(held.allowed),
        )


class ErrorDetail(Answer):
    code: str
    message: str
    field: str | None
    # on the OpenAI-compatible chat wire (`/v1/...`) also OpenAI's own two fields
    type: str | None = None
    param: str | None = None
    # `decision_pending` on the AG-UI wire: the pending call, to rebuild its approval from
    decision: HeldCall | None = None


class ErrorAnswer(Answer):
    """Every error: the status follows from the code (`worker.http.server.statuses`)."""

    error: ErrorDetail

    @classmethod
    def of(
        cls, code: str, message: str, field: str | None, held: PendingDecision | None = None
    ) -> Self:
        if held is None:  # the member is written only when there is a call to show
            return cls(error=ErrorDetail(code=code, message=message, field=field))
        detail = ErrorDetail(code=code, message=message, field=field, decision=HeldCall.of(held))
        return cls(error=detail)

    @classmethod
    def openai(cls, code: str, message: str, field: str | None, kind: str) -> Self:
        """With OpenAI's `type` (`kind`) and `param` (the field again)."""
        detail = ErrorDetail(code=code, message=message, field=field, type=kind, param=field)
        return cls(error=detail)


class AnthropicErrorDetail(WireAnswer):
    type: str  # Anthropic's error type (invalid_request_error, not_found_error, ...)
    code: str
    message: str
    field: str | None


class AnthropicError(WireAnswer):
    """An error on the Anthropic Messages wire, in Anthropic's envelope."""

    type: Literal["error"]
    error: AnthropicErrorDetail

    @classmethod
    def of(cls, kind: str, code: str, message: str, field: str | None) -> Self:
        """`kind`: Anthropic's error type."""
        detail = AnthropicErrorDetail(type=kind, code=code, message=message, field=field)
        return cls(type="error", error=detail)
