"""The one translation at the HTTP boundary: every failure a route can meet becomes one answer.

Routes never build error answers; they raise. Validation raises `InvalidRequest`, stores raise
their `MemoryFailure`s, `unwrap` raises a memory envelope's error as the same typed failure, the
database deadline raises `Unavailable`, the voice path, the catalog, the chat turns and the key
check raise their own coded failures (all `memory.contract.CodedError`s), and aiohttp raises
`HTTPException`s. `error_middleware` catches them all and `translate` turns each into a
`Problem`; `answer` writes it as `{"error": {code, message, field}}` (the models of
`answers.errors`, a chat wire's own envelope among them) with the status
`worker.http.server.statuses` gives the code. A coded failure's message names fields and rules,
never user content; anything else is a 500 `internal_error` that says nothing and is logged by
type only (a database error can quote the values it rejected).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Final, Literal, TypeAlias

import structlog
from aiohttp import web
from aiohttp.typedefs import Handler

from chat.held import DecisionPending, PendingDecision
from chat.journal import ActedThenFailed, OutcomeUnknown
from memory.contract import CodedError
from worker.http.server.answers.errors import AnthropicError, ErrorAnswer
from worker.http.server.context import respond
from worker.http.server.failures import StreamsFull
from worker.http.server.request_body import BodyTimedOut, BodyTooLarge, ClientGone
from worker.http.server.statuses import INTERNAL_ERROR, code_for_status, status_for

log = structlog.get_logger(__name__)

CodedFailure: TypeAlias = CodedError
"""The failures whose code, message and field may reach the client as they are: every
`memory.contract.CodedError`, whichever room raised it."""


@dataclass(frozen=True, slots=True)
class Problem:
    """One error answer before it is written: what the body says and how the reply travels."""

    code: str
    message: str
    field: str | None = None
    headers: tuple[tuple[str, str], ...] = ()  # beside the JSON type, e.g. `Allow`
    close: bool = False  # close the connection after answering (the rest of a body is unread)
    held: PendingDecision | None = None  # the call a `decision_pending` waits on (AG-UI)

    @property
    def status(self) -> int:
        return status_for(self.code)


UNEXPECTED: Final = Problem(INTERNAL_ERROR, "internal error")
"""The answer to any exception that is not a typed failure: nothing of it reaches the client."""


SHOULD_RETRY: Final = "x-should-retry"
"""The header the official `openai` and `anthropic` clients obey over their own retry rules."""
_FINAL_STATUSES: Final = frozenset({400, 413, 415, 422})
_FINAL_CODES: Final = frozenset({"decision_pending", "decision_taken", "idempotency_key_reused"})
_WAIT_CODES: Final = frozenset({"server_busy", "idempotency_key_in_progress", "export_busy"})


def _retry_headers(failure: CodedFailure) -> tuple[tuple[str, str], ...]:
    """`Retry-After` where waiting helps (a full server, an add with the same key still
    running, exports at their limit); `x-should-retry: false` where the same request can never
    succeed (a bad request, a decision already pending or taken, an idempotency key used for
    another body) or is not safe again (a turn whose outcome is unknown)."""
    if isinstance(failure, StreamsFull) or failure.code in _WAIT_CODES:
        return (("Retry-After", "1"),)
    final = status_for(failure.code) in _FINAL_STATUSES or failure.code in _FINAL_CODES
    return ((SHOULD_RETRY, "false"),) if final or isinstance(failure, OutcomeUnknown) else ()


def translate(failure: Exception) -> Problem:
    """The answer to a failure a route raised (an `HTTPException` below 400 is not a failure)."""
    if isinstance(failure, ActedThenFailed):  # its own failure, never to be retried blindly
        problem = translate(failure.cause)
        return replace(problem, headers=(*problem.headers, (SHOULD_RETRY, "false")))
    if isinstance(failure, CodedFailure):
        close = isinstance(failure, BodyTimedOut | BodyTooLarge | ClientGone)
        headers = _retry_headers(failure)
        held = failure.held if isinstance(failure, DecisionPending) else None
        return Problem(failure.code, failure.message, failure.field, headers, close, held)
    if isinstance(failure, web.HTTPException):
        allow = failure.headers.get("Allow")
        headers = () if allow is None else (("Allow", allow),)
        return Problem(code_for_status(failure.status), failure.reason, headers=headers)
    return UNEXPECTED


OPENAI_PREFIX: Final = "/v1/"
"""Paths of the OpenAI-compatible wire: their errors also carry OpenAI's `type` and `param`."""
ANTHROPIC_PATH: Final = "/v1/messages"
"""The Anthropic Messages wire: its errors are in Anthropic's shape."""
Wire = Literal["plain", "openai", "anthropic"]


def wire_of(path: str) -> Wire:
    """Which error shape a path answers in."""
    if path == ANTHROPIC_PATH:
        return "anthropic"
    return "openai" if path.startswith(OPENAI_PREFIX) else "plain"


def _openai_type(status: int) -> str:
    if status == 401:
        return "authentication_error"
    if status == 403:
        return "permission_error"
    if status == 404:
        return "not_found_error"
    return "invalid_request_error" if status < 500 else "server_error"


_ANTHROPIC_TYPES: Final = {
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    504: "timeout_error",
}


def _anthropic_type(status: int) -> str:
    default = "invalid_request_error" if status < 500 else "api_error"
    return _ANTHROPIC_TYPES.get(status, default)


def error_body(problem: Problem, wire: Wire = "plain") -> dict[str, Any]:
    """The error's JSON body: ours (`code`, `message`, `field`), on the OpenAI wire with its
    `type` and `param` too, on the Anthropic wire inside Anthropic's envelope with its `type`,
    so each wire's clients read it as their own."""
    code, message, field = problem.code, problem.message, problem.field
    if wire == "anthropic":
        kind = _anthropic_type(problem.status)
        return AnthropicError.of(kind, code, message, field).wire()
    if wire == "openai":
        return ErrorAnswer.openai(code, message, field, _openai_type(problem.status)).wire()
    return ErrorAnswer.of(code, message, field, problem.held).wire()


def answer(problem: Problem, *, wire: Wire = "plain") -> web.Response:
    """The JSON error answer; a 401 also names the scheme the API takes."""
    response = respond(error_body(problem, wire), status=problem.status)
    for name, value in problem.headers:
        response.headers[name] = value
    if response.status == 401:
        response.headers["WWW-Authenticate"] = "Bearer"
    if problem.close:
        response.force_close()
    return response


@web.middleware
async def error_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Every route's failures go through `translate`; redirects pass through untouched."""
    try:
        return await handler(request)
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        return answer(translate(exc), wire=wire_of(request.path))
    except ClientGone as gone:  # the client's abort: info, and 499 in the access line
        log.info("web.client_gone", method=request.method)
        return answer(translate(gone), wire=wire_of(request.path))
    except Exception as exc:
        problem = translate(exc)
        if problem is UNEXPECTED:  # no traceback: database errors can quote rejected values
            log.error("web.unhandled_error", error_type=type(exc).__name__, method=request.method)
        return answer(problem, wire=wire_of(request.path))
