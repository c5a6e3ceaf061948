"""A request's body: read within its deadline and size limit, as strict UTF-8 JSON, validated
against the route's pydantic model. Every refusal names the field and the rule: 400 for bad
JSON or a bad field, 408 when the body is late, 413 past the limit, 415 for another
`Content-Type`; a client gone before its body arrived is 499 (`ClientGone`).
"""

from __future__ import annotations

import asyncio
from typing import TypeVar

from aiohttp import web
from pydantic import BaseModel, ValidationError

from memory.contract import CodedError, InvalidRequest, strict_json
from worker.http.server.serving import LIMITS

M = TypeVar("M", bound=BaseModel)


class BodyTimedOut(CodedError):
    """The request body did not arrive within the body deadline (408; the connection closes)."""

    code = "request_timeout"

    def __init__(self, seconds: float) -> None:
        super().__init__(f"body: not received within {seconds:g} seconds", field="body")


class ClientGone(CodedError):
    """The client closed its connection before its body arrived: nobody waits for an answer.
    Answered (to no one) and counted as 499, nginx's "client closed request", and logged at
    info as `web.client_gone`: a client's abort is never a server failure (5xx)."""

    code = "client_closed_request"

    def __init__(self) -> None:
        super().__init__(
            "body: the client closed the connection before sending all of it", field="body"
        )


class BodyTooLarge(CodedError):
    """The declared `Content-Length` is past the body limit: 413 before any of the body is read
    (the connection closes, so the body is never waited for)."""

    code = "payload_too_large"

    def __init__(self, limit: int, declared: int) -> None:
        super().__init__(
            f"body: at most {limit} bytes, Content-Length says {declared}", field="body"
        )


JSON_TYPE = "application/json"


class NotJson(CodedError):
    """A route that reads a JSON body was sent another `Content-Type`, or none (415, before any
    of the body is read)."""

    code = "unsupported_media_type"

    def __init__(self) -> None:
        super().__init__(f"Content-Type: must be {JSON_TYPE}", field="Content-Type")


def require_json(request: web.Request) -> None:
    """The one check of a JSON route's `Content-Type` (its parameters, the charset, are
    `read_json`'s); aiohttp reads a missing header as `application/octet-stream`."""
    if request.content_type != JSON_TYPE:
        raise NotJson()


JSON_CHARSETS = frozenset({"utf-8", "utf8"})
"""JSON travels as UTF-8 (RFC 8259 section 8.1): any other declared charset is refused."""


async def read_body(request: web.Request) -> bytes:
    """The whole body within the body deadline (aiohttp keeps it: later reads are free); a
    declared length past the limit is refused before a byte of it is read."""
    limit, declared = request.client_max_size, request.content_length
    if declared is not None and declared > limit:
        raise BodyTooLarge(limit, declared)
    seconds = request.app[LIMITS].body_timeout_seconds
    try:
        async with asyncio.timeout(seconds):
            return await request.read()
    except TimeoutError:
        raise BodyTimedOut(seconds) from None
    except ConnectionResetError:  # aiohttp's "Connection lost" while the body was owed
        raise ClientGone() from None


async def read_json(request: web.Request, *, model_text: bool = False) -> object:
    """The request body as strict JSON (`memory.contract.strict_json`); every refusal is a 400.
    `model_text`: string values may hold NUL and lone surrogates (a body that resends what a
    model wrote); the route checks the client's own words with `client_text`.

    The body is decoded here rather than by `request.text()`, which raises on an unknown
    charset or bytes that are not UTF-8 instead of saying which rule the body broke.
    """
    charset = request.charset
    if charset is not None and charset.lower() not in JSON_CHARSETS:
        raise InvalidRequest("Content-Type: the charset must be utf-8", field="Content-Type")
    raw = await read_body(request)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidRequest("body: must be UTF-8 text", field="body") from None
    try:
        return strict_json.loads(text, model_text=model_text)
    except strict_json.JsonRejected as rejected:
        raise _rejected(rejected) from None


def client_text(value: object, root: str) -> None:
    """A 400 naming the field when a part of a `model_text` body that the client wrote holds
    NUL or a lone surrogate."""
    try:
        strict_json.check_characters(value, root)
    except strict_json.JsonRejected as rejected:
        raise _rejected(rejected) from None


def _rejected(rejected: strict_json.JsonRejected) -> InvalidRequest:
    field = rejected.path or "body"
    return InvalidRequest(f"{field}: {rejected.rule}", field=field)


def parse_body(model: type[M], body: object) -> M:
    """Validate a body against a pydantic model; the first error names its field."""
    try:
        return model.model_validate(body)
    except ValidationError as exc:
        error = exc.errors(include_url=False, include_input=False)[0]
        field = ".".join(str(part) for part in error["loc"]) or "body"
        raise InvalidRequest(f"{field}: {error['msg']}", field=field) from None
