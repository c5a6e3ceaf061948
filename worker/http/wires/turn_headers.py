"""The headers every chat wire reads the same way: who the turn is for and which session it
keeps. Every refusal is a 400 that names the header and the rule.

The customer comes from two places only: the wire's own identity field (`user` on OpenAI's
wire, `metadata.user_id` on Anthropic's), which supplies `customerId` and nothing else, and the
`x-stackbone-identities` header, a JSON object of literal field names to opaque values checked
by the same rules as a browser call's identities (`chat.identities`). Header values travel as
ASCII: non-ASCII characters are sent as JSON `\\u` escapes, and the values are kept
byte-for-byte after decoding. A bearer key or a session key never supplies an identity.
"""

from __future__ import annotations

from typing import Final

from aiohttp import web

from chat import SessionRef
from chat.identities import (
    MAX_HEADER_BYTES,
    InvalidIdentities,
    check_identities,
    merge_customer_id,
)
from chat.turn_request import MAX_SESSION_KEY_CHARS
from memory.contract import InvalidRequest, strict_json

IDENTITIES_HEADER: Final = "x-stackbone-identities"
SESSION_HEADER: Final = "x-stackbone-session"
CONVERSATION_HEADER: Final = "x-stackbone-conversation"


def _header_problem(header: str, rule: str) -> InvalidRequest:
    return InvalidRequest(f"{header}: {rule}", field=header)


def identities_of(request: web.Request, user: object, user_field: str = "user") -> dict[str, str]:
    """The checked identities map of a turn, the wire's own identity field (`user_field`: `user`
    on OpenAI's wire, `metadata.user_id` on Anthropic's) folded in as `customerId`."""
    raw = request.headers.getall(IDENTITIES_HEADER, [])
    if len(raw) > 1:
        raise _header_problem(IDENTITIES_HEADER, "must be sent once")
    parsed: object = None
    if raw:
        text = raw[0]
        if len(text) > MAX_HEADER_BYTES:
            raise _header_problem(IDENTITIES_HEADER, f"must be at most {MAX_HEADER_BYTES} bytes")
        if not text.isascii():
            raise _header_problem(
                IDENTITIES_HEADER, r"must be ASCII: send other characters as \u escapes"
            )
        try:
            parsed = strict_json.loads(text)
        except strict_json.JsonRejected as rejected:
            raise _header_problem(
                IDENTITIES_HEADER, f"must be a JSON object ({rejected.rule})"
            ) from None
        if parsed is None:
            raise _header_problem(IDENTITIES_HEADER, "must be a JSON object")
    try:
        identities = check_identities(parsed)
    except InvalidIdentities as exc:
        raise InvalidIdentities(exc.rule, IDENTITIES_HEADER) from None
    try:
        return merge_customer_id(identities, user)
    except InvalidIdentities as exc:
        field = IDENTITIES_HEADER if exc.field == "identities" else user_field
        raise InvalidIdentities(exc.rule, field) from None


SessionHeader = SessionRef
"""The session headers' value: `chat.SessionRef` (the name the wires used before)."""


def _key(request: web.Request, header: str) -> str | None:
    values = request.headers.getall(header, [])
    if not values:
        return None
    if len(values) > 1:
        raise _header_problem(header, "must be sent once")
    key = values[0]
    if not key:
        raise _header_problem(header, "must have at least 1 character")
    if len(key) > MAX_SESSION_KEY_CHARS:
        raise _header_problem(header, f"must have at most {MAX_SESSION_KEY_CHARS} characters")
    if not key.isascii() or not key.isprintable():
        raise _header_problem(header, "must be printable ASCII")
    return key


def session_of(request: web.Request) -> SessionHeader | None:
    """The session header of a turn, if any; both headers at once are refused."""
    session, conversation = _key(request, SESSION_HEADER), _key(request, CONVERSATION_HEADER)
    if session is not None and conversation is not None:
        raise _header_problem(
            SESSION_HEADER, f"send either {SESSION_HEADER} or {CONVERSATION_HEADER}, not both"
        )
    if session is not None:
        return SessionHeader("session", session)
    if conversation is not None:
        return SessionHeader("conversation", conversation)
    return None
