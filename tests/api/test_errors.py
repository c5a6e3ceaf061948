"""One translation at the HTTP boundary: every failure a route can meet, one error answer.

The table names, for each kind of failure, the answer the API has always given; the same table is
checked against `translate` with plain values and through a served app that has only the error
middleware. Envelope errors come back as the very failure a store raises, routes of every family
answer the same failure identically (that no route module writes an error answer itself:
`test_route_error_writers.py`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from structlog.testing import capture_logs

from chat.identities import IdentitiesRule, InvalidIdentities
from memory.contract import (
    CapabilityUnavailable,
    Conflict,
    ErrorInfo,
    InvalidModelOutput,
    InvalidRequest,
    MemoryFailure,
    ModelFailed,
    PersistFailed,
    Result,
    SchemaMissing,
    Unavailable,
)
from sip.destination import InvalidDestination
from tests.api.conftest import auth
from tests.web_clients import Client
from worker.catalog import UnknownAgent
from worker.dispatcher import LiveKitFailed, VoiceNotConfigured
from worker.http.server.auth import Forbidden, Unauthenticated
from worker.http.server.context import failure_of, unwrap
from worker.http.server.errors import UNEXPECTED, error_middleware, translate
from worker.http.server.request_body import BodyTimedOut, BodyTooLarge

SECRET = "+34600123456 said the secret"


@dataclass(frozen=True)
class Case:
    failure: Exception
    status: int
    code: str
    message: str
    field: str | None = None


CASES: dict[str, Case] = {
    "invalid request": Case(
        InvalidRequest("userId: required", field="userId"),
        400,
        "memory_invalid_request",
        "userId: required",
        "userId",
    ),
    "model failed": Case(
        ModelFailed("model: no answer"), 502, "memory_model_failed", "model: no answer"
    ),
    "invalid model output": Case(
        InvalidModelOutput("ops: not a list"), 502, "memory_invalid_model_output", "ops: not a list"
    ),
    "conflict": Case(
        Conflict("identity key: fixed", field="identityKey"),
        409,
        "memory_conflict",
        "identity key: fixed",
        "identityKey",
    ),
    "persist failed": Case(
        PersistFailed("write failed"), 503, "memory_persist_failed", "write failed"
    ),
    "schema missing": Case(
        SchemaMissing("run migrations"), 503, "memory_schema_missing", "run migrations"
    ),
    "database deadline": Case(
        Unavailable("the database did not answer within the deadline"),
        503,
        "memory_unavailable",
        "the database did not answer within the deadline",
    ),
    "capability": Case(
        CapabilityUnavailable("no search"), 503, "capability_unavailable", "no search"
    ),
    "body timeout": Case(
        BodyTimedOut(2.5), 408, "request_timeout", "body: not received within 2.5 seconds", "body"
    ),
    "unknown agent": Case(
        UnknownAgent(),
        404,
        "agent_not_found",
        "agentId: no agent with this id is declared",
        "agentId",
    ),
    "no key": Case(
        Unauthenticated("a bearer API key is required"),
        401,
        "unauthorized",
        "a bearer API key is required",
    ),
    "wrong scope": Case(
        Forbidden("this API key lacks the memory:read scope"),
        403,
        "forbidden",
        "this API key lacks the memory:read scope",
    ),
    "identities": Case(
        InvalidIdentities(IdentitiesRule.NAME_EMPTY, "identities"),
        400,
        "invalid_identities",
        "identities: names must have at least 1 character (identity_name_empty)",
        "identities",
    ),
    "destination": Case(
        InvalidDestination("phoneNumber", "must be digits"),
        400,
        "invalid_destination",
        "phoneNumber: must be digits",
        "phoneNumber",
    ),
    "livekit": Case(
        LiveKitFailed("create the room", "unavailable"),
        502,
        "livekit_failed",
        "LiveKit could not create the room (unavailable)",
    ),
    "voice off": Case(
        VoiceNotConfigured(),
        503,
        "voice_not_configured",
        "LiveKit is not configured: set LIVEKIT_URL, LIVEKIT_API_KEY and _SECRET",
    ),
    "aiohttp 404": Case(web.HTTPNotFound(), 404, "not_found", "Not Found"),
    "aiohttp 413": Case(
        web.HTTPRequestEntityTooLarge(max_size=1, actual_size=2),
        413,
        "payload_too_large",
        "Request Entity Too Large",
    ),
    "declared too large": Case(
        BodyTooLarge(1024, 1025),
        413,
        "payload_too_large",
        "body: at most 1024 bytes, Content-Length says 1025",
        "body",
    ),
    "aiohttp 405": Case(
        web.HTTPMethodNotAllowed("PATCH", ["GET"]), 405, "method_not_allowed", "Method Not Allowed"
    ),
    "unexpected": Case(RuntimeError(SECRET), 500, "internal_error", "internal error"),
    "unexpected key error": Case(KeyError(SECRET), 500, "internal_error", "internal error"),
}


class Impostor(Exception):
    """Looks like a coded failure but is not one of the registered types: it says nothing."""

    code = "memory_invalid_request"
    field = "userId"

    def __init__(self) -> None:
        self.message = SECRET
        super().__init__(SECRET)


CASES["impostor"] = Case(Impostor(), 500, "internal_error", "internal error")
IDS = list(CASES)


@pytest.mark.parametrize("name", IDS)
def test_translation_table(name: str) -> None:
    """Each failure becomes exactly the status, code, message and field the API has given."""
    case = CASES[name]
    problem = translate(case.failure)
    assert (problem.status, problem.code, problem.message, problem.field) == (
        case.status,
        case.code,
        case.message,
        case.field,
    )


@pytest.fixture(name="raising")
async def _raising() -> AsyncIterator[TestClient[web.Request, web.Application]]:
    """An app with only the error middleware whose one route raises the failure it is given."""

    async def handler(request: web.Request) -> web.StreamResponse:
        raise CASES[request.match_info["name"]].failure

    async def redirect(_: web.Request) -> web.StreamResponse:
        raise web.HTTPFound("/elsewhere")

    app = web.Application(middlewares=[error_middleware])
    app.router.add_get("/raise/{name}", handler)
    app.router.add_get("/redirect", redirect)
    client: TestClient[web.Request, web.Application] = TestClient(TestServer(app))
    await client.start_server()
    yield client
    await client.close()


@pytest.mark.parametrize("name", IDS)
async def test_served_answer(raising: TestClient[web.Request, web.Application], name: str) -> None:
    """Through the middleware: the status line, the one JSON shape, nothing of user content."""
    case = CASES[name]
    response = await raising.get(f"/raise/{name}")
    assert response.status == case.status
    assert response.content_type == "application/json"
    body = await response.json()
    assert body == {"error": {"code": case.code, "message": case.message, "field": case.field}}
    assert SECRET not in await response.text()
    assert (response.headers.get("WWW-Authenticate") == "Bearer") == (case.status == 401)
    assert ("Allow" in response.headers) == (case.status == 405)
    closes = name in {"body timeout", "declared too large"}  # the rest of the body is unread
    assert (response.headers.get("Connection") == "close") == closes


async def test_redirects_pass_through(raising: TestClient[web.Request, web.Application]) -> None:
    response = await raising.get("/redirect", allow_redirects=False)
    assert response.status == 302
    assert response.headers["Location"] == "/elsewhere"


async def test_only_the_unexpected_is_logged_and_by_type_only(
    raising: TestClient[web.Request, web.Application],
) -> None:
    """A typed failure is an answer, not an incident; the unexpected one is logged by type."""
    with capture_logs() as seen:
        await raising.get("/raise/conflict")
        await raising.get("/raise/unexpected")
    assert seen == [
        {
            "event": "web.unhandled_error",
            "error_type": "RuntimeError",
            "method": "GET",
            "log_level": "error",
        }
    ]


@pytest.mark.parametrize(
    "failure",
    [
        MemoryFailure,
        InvalidRequest,
        ModelFailed,
        InvalidModelOutput,
        Conflict,
        PersistFailed,
        SchemaMissing,
        Unavailable,
        CapabilityUnavailable,
    ],
)
def test_envelope_error_is_the_failure_a_store_raises(failure: type[MemoryFailure]) -> None:
    """`unwrap` raises the envelope's error as the same type, code, message and field."""
    raised = failure("limit: too big", field="limit")
    with pytest.raises(failure) as caught:
        unwrap(Result.failed(raised))
    assert type(caught.value) is failure
    assert translate(caught.value) == translate(raised)


def test_an_unknown_envelope_code_is_a_server_error() -> None:
    failure = failure_of(ErrorInfo("memory_something_new", "x"))
    assert translate(failure).status == 500


# the same failure met by routes of every family (envelope, store, validation, voice, ops)
UNKNOWN_AGENT_REQUESTS = [
    ("GET", "/api/memory/settings/ghost", None),
    ("PUT", "/api/memory/settings/ghost", {}),
    ("DELETE", "/api/memory/settings/ghost", None),
    ("POST", "/api/memory/customers/ghost/recall", {"userId": "u"}),
    ("POST", "/api/memory/customers/ghost/history", {"userId": "u"}),
    ("POST", "/api/memory/customers/ghost/delete-all", {"userId": "u"}),
    ("POST", "/api/memory/customers/ghost/search", {"query": "q"}),
    ("GET", "/api/memory/ops?agentId=ghost", None),
    ("GET", "/api/memory/activity?agentId=ghost", None),
]


@pytest.mark.parametrize(("method", "path", "body"), UNKNOWN_AGENT_REQUESTS)
async def test_every_route_answers_an_unknown_agent_alike(
    client: Client, method: str, path: str, body: dict[str, Any] | None
) -> None:
    response = await client.request(method, path, json=body, headers=auth())
    assert response.status == 404
    assert await response.json() == {
        "error": {
            "code": "agent_not_found",
            "message": "agentId: no agent with this id is declared",
            "field": "agentId",
        }
    }


INVALID_REQUESTS = [
    # envelope (memory API), validation (pydantic body), store-side parsing, query parsing
    ("POST", "/api/memory/customers/support/recall", {"userId": ""}, "user_id"),
    ("POST", "/api/memory/customers/support/search", {"query": "q", "k": 0}, "k"),
    ("POST", "/api/memory/customers/support/recall", {"userId": "u", "extra": 1}, "extra"),
    ("PUT", "/api/memory/settings/support", {"nope": 1}, "nope"),
    ("PUT", "/api/memory/extraction/model", {"nope": 1}, "nope"),
    ("GET", "/api/memory/ops", None, "agentId"),
    ("GET", "/api/memory/activity?limit=0", None, "limit"),
]


@pytest.mark.parametrize(("method", "path", "body", "field"), INVALID_REQUESTS)
async def test_invalid_requests_share_one_shape(
    client: Client, method: str, path: str, body: dict[str, Any] | None, field: str
) -> None:
    """Whether the memory API, a body model or a parser refused it: 400, one shape, the field."""
    response = await client.request(method, path, json=body, headers=auth())
    assert response.status == 400
    error = (await response.json())["error"]
    assert set(error) == {"code", "message", "field"}
    assert (error["code"], error["field"]) == ("memory_invalid_request", field)


def test_unexpected_answer_is_the_shared_constant() -> None:
    assert translate(ValueError(SECRET)) is UNEXPECTED
