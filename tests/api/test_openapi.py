"""The OpenAPI document against the real app: every route's real answers, errors included, match.

One app (the production `create_app` over the test database, voice pointed at the LiveKit
stand-in) answers a table of requests covering every route's success and its usual failures;
each answer's body is validated (jsonschema, draft 2020-12) against the schema the document gives
for that path, method and status, falling back to the `default` (error) response.
"""

from __future__ import annotations

import json
import re
from typing import Any

import asyncpg
import pytest
from jsonschema import Draft202012Validator
from livekit.agents import function_tool

from callmemory.definition import define_agent
from chat import ChatConfig, session_id, session_scope
from memory.api import Memory
from memory.config import MemoryConfig
from testkit.model_server import ModelServer
from tests.api.conftest import auth, build_catalog
from tests.memory.helpers import add_op, update_op
from tests.web_clients import AppClients, Client
from worker.catalog import Catalog
from worker.http.console.screen import FILES as SCREEN_FILES
from worker.http.server.auth import ApiKey
from worker.http.server.context import DOCUMENTS
from worker.http.web import create_app

USER = "+34 611 22 33 44"
# the session a chat turn below opens (support's key is phoneNumber; the turn names nobody)
SESSION_ID = session_id("session", "support", "openapi", session_scope("phoneNumber", {}))
CHAT = {"model": "support", "messages": [{"role": "user", "content": "Hi"}]}
MESSAGES = {**CHAT, "max_tokens": 20}  # Anthropic Messages
Call = tuple[str, str, Any, str | None]  # method, path, JSON body, key name (None: no key)

CALLS: list[Call] = [
    ("GET", "/healthz", None, None),
    ("GET", "/api/openapi.json", None, None),
    ("GET", "/api/memory/agents", None, "config-reader"),
    ("GET", "/api/memory/agents", None, None),  # 401
    ("GET", "/api/memory/settings/support", None, "config-reader"),
    ("GET", "/api/memory/settings/nobody-here", None, "config-reader"),  # 404
    ("PUT", "/api/memory/settings/sales", {"read": True, "remember": ["car model"]}, "admin"),
    ("PUT", "/api/memory/settings/sales", {"identityKey": "contact.email"}, "admin"),
    ("PUT", "/api/memory/settings/sales", {"identityKey": "phoneNumber"}, "admin"),  # 409
    ("PUT", "/api/memory/settings/sales", {"read": "yes"}, "admin"),  # 400
    ("PUT", "/api/memory/settings/sales", {"read": True}, "config-reader"),  # 403
    ("DELETE", "/api/memory/settings/sales?field=read", None, "admin"),
    ("GET", "/api/memory/settings/support/retention", None, "config-reader"),
    ("PUT", "/api/memory/settings/sales/retention", {"calls": 90, "ops": None}, "admin"),
    ("PUT", "/api/memory/settings/sales/retention", {"calls": 0}, "admin"),  # 400
    ("DELETE", "/api/memory/settings/sales?field=colour", None, "admin"),  # 400
    ("DELETE", "/api/memory/agents/sales", None, "admin"),  # its memory stays
    ("POST", "/api/memory/customers/support/recall", {"userId": USER}, "memory-reader"),
    ("POST", "/api/memory/customers/support/recall", {"userId": USER, "calls": 999}, "admin"),
    ("POST", "/api/memory/customers/support/recall", "[1, 2", "admin"),  # malformed JSON
    ("POST", "/api/memory/customers/support/history", {"userId": USER}, "memory-reader"),
    ("POST", "/api/memory/customers/support/history", {}, "memory-reader"),  # 400
    ("POST", "/api/memory/customers/support/export", {"userId": USER}, "memory-reader"),
    ("POST", "/api/memory/customers/support/export", {"userId": USER}, "memory-eraser"),  # 403
    ("POST", "/api/memory/customers/support/reads", {"userId": USER}, "memory-reader"),
    ("POST", "/api/memory/customers/support/reads", {"userId": USER, "limit": 0}, "admin"),  # 400
    ("POST", "/api/memory/customers/support/search", {"query": "Corolla"}, "memory-reader"),
    (
        "POST",
        "/api/memory/customers/support/search",
        {"query": "611", "mode": "identifier"},
        "admin",
    ),
    ("POST", "/api/memory/customers/support/search", {"query": "x", "k": 51}, "admin"),  # 400
    ("GET", "/api/memory/extraction", None, "config-reader"),
    (
        "PUT",
        "/api/memory/extraction/guidance/draft",
        {"text": "Prefer the caller's words."},
        "admin",
    ),
    ("PUT", "/api/memory/extraction/guidance/draft", {"text": 5}, "admin"),  # 400
    ("POST", "/api/memory/extraction/guidance/publish", None, "admin"),
    ("DELETE", "/api/memory/extraction/guidance", None, "admin"),
    ("PUT", "/api/memory/extraction/model", {"model": "gpt-x", "reasoningEffort": "low"}, "admin"),
    ("PUT", "/api/memory/extraction/model", {"reasoningEffort": "extreme"}, "admin"),  # 400
    ("GET", "/api/memory/agents/support/prompt", None, "config-reader"),
    ("PUT", "/api/memory/agents/support/prompt/draft", {"text": "Be brief."}, "admin"),
    ("PUT", "/api/memory/agents/support/prompt/draft", {"text": 5}, "admin"),  # 400
    ("POST", "/api/memory/agents/support/prompt/publish", None, "admin"),
    ("DELETE", "/api/memory/agents/support/prompt", None, "admin"),
    ("GET", "/api/memory/activity?limit=5", None, "config-reader"),
    ("GET", "/api/memory/activity?limit=0", None, "config-reader"),  # 400
    ("GET", "/api/memory/ops?agentId=support", None, "memory-reader"),
    ("GET", "/api/memory/ops?agentId=support&limit=501", None, "memory-reader"),  # 400
    ("GET", "/api/memory/overview", None, "memory-reader"),
    ("GET", "/api/memory/overview?agentId=support", None, "memory-reader"),  # 400
    ("GET", "/api/voice/agents", None, "admin"),
    (
        "POST",
        "/api/voice/rooms",
        {"agentId": "support", "identities": {"phoneNumber": USER}},
        "admin",
    ),
    ("POST", "/api/voice/rooms", {"agentId": "support", "identities": [1]}, "admin"),  # 400
    ("POST", "/api/voice/calls", {"agentId": "support", "phoneNumber": "+34600111222"}, "admin"),
    ("POST", "/api/voice/calls", {"agentId": "support", "phoneNumber": "call me"}, "admin"),
    ("POST", "/v1/chat/completions", CHAT, "admin"),
    ("POST", "/v1/chat/completions", {**CHAT, "model": "nobody"}, "admin"),  # 404
    ("POST", "/v1/chat/completions", {**CHAT, "n": 3}, "admin"),  # 400
    ("POST", "/v1/messages", MESSAGES, "admin"),
    ("POST", "/v1/messages", {**MESSAGES, "model": "nobody"}, "admin"),  # 404
    ("POST", "/v1/messages", CHAT, "admin"),  # 400: max_tokens
    ("POST", "/v1/messages", MESSAGES, None),  # 401
    ("GET", "/api/chat/sessions/support", None, "memory-reader"),
    ("GET", f"/api/chat/sessions/support/{SESSION_ID}", None, "memory-reader"),
    ("GET", "/api/chat/sessions/support?limit=0", None, "memory-reader"),  # 400
    ("GET", "/api/chat/sessions/support?customer=crm%2F1&limit=1", None, "memory-reader"),
    ("GET", "/api/chat/sessions/support?cursor=bogus", None, "memory-reader"),  # 400
    ("DELETE", f"/api/chat/sessions/support/{SESSION_ID}", None, "memory-eraser"),
    ("DELETE", f"/api/chat/sessions/support/{SESSION_ID}", None, "memory-eraser"),  # 404
    ("POST", "/api/memory/customers/support/delete-all", {"userId": USER}, "memory-eraser"),
    ("POST", "/api/memory/customers/support/delete-all", {"userId": USER}, "memory-reader"),  # 403
    ("GET", "/api/documents/collections", None, "docs-reader"),
    ("GET", "/api/documents/collections/help/documents", None, "docs-reader"),
    ("GET", "/api/documents/collections/Help!/documents", None, "docs-reader"),  # 400
    ("POST", "/api/documents/collections/help/search", {"query": "refund", "topK": 2}, "admin"),
    ("POST", "/api/documents/collections/nowhere/search", {"query": "refund"}, "admin"),  # 404
    ("GET", "/api/documents/documents/{doc}", None, "docs-reader"),
    ("GET", "/api/documents/documents/not-a-uuid", None, "docs-reader"),  # 400
    ("DELETE", "/api/documents/documents/{doc}", None, "docs-reader"),  # 403
    ("DELETE", "/api/documents/documents/{doc}", None, "admin"),
]
PAGES = ["/", "/memory", "/memory/", "/memory/screen.js", "/memory/screen.css", "/voice"]
PAGES += ["/voice/", "/voice/page.js", "/voice/page.css", "/voice/livekit-client.umd.js"]
PAGES += [f"/memory/{name}" for name in SCREEN_FILES]  # the screen's modules


@pytest.fixture
def memory_config(model_server: ModelServer) -> MemoryConfig:
    """With an embedding model, so document collections answer."""
    return MemoryConfig(
        base_url=model_server.url, api_key="test-key", embedding_model="test-embedding"
    )


async def _document_uploads(
    client: Client, document: dict[str, Any]
) -> tuple[str, set[tuple[str, str]]]:
    """The raw upload and download routes (not JSON in): a ready document's id and what answered."""
    path = "/api/documents/collections/help/documents?source=returns.md"
    refused = await client.post(
        path, data=b"x", headers={**auth("admin"), "Content-Type": "application/msword"}
    )
    assert _check(document, "POST", path, refused.status, await refused.json()) == "default"
    uploaded = await client.post(
        path,
        data=b"# Returns\n\nRefund within 30 days.",
        headers={**auth("admin"), "Content-Type": "text/markdown"},
    )
    body = await uploaded.json()
    assert _check(document, "POST", path, uploaded.status, body) == "202"
    app = client.app
    assert app is not None
    await app[DOCUMENTS].drain()
    download = f"/api/documents/documents/{body['id']}/original"
    original = await client.get(download, headers=auth("docs-reader"))
    media = _operation(document, "GET", download)["responses"]["200"]["content"]
    assert original.status == 200 and original.content_type in media
    return body["id"], {("POST", path.split("?", 1)[0]), ("GET", download)}


async def _ops_stream(client: Client, document: dict[str, Any]) -> tuple[str, str]:
    """The live ops stream (server-sent events): one event's data against the document."""
    path = "/api/memory/ops/stream"
    async with client.get(f"{path}?agentId=support", headers=auth("memory-reader")) as stream:
        assert stream.status == 200
        response = _operation(document, "GET", path)["responses"]["200"]
        assert stream.content_type in response["content"]
        lines = []
        while (line := (await stream.content.readline()).decode()) != "\n":
            lines.append(line)
    data = json.loads(next(line for line in lines if line.startswith("data: "))[6:])
    schema = {**response["x-event-data"], "components": document["components"]}
    assert not list(Draft202012Validator(schema).iter_errors(data))
    return ("GET", path)


async def _agui_run(client: Client, document: dict[str, Any]) -> tuple[str, str]:
    """A run on the AG-UI wire (server-sent events): its media type as documented."""
    path = "/agui/support"
    said = [{"id": "u", "role": "user", "content": "Hi"}]
    body = {"threadId": "openapi", "runId": "r", "messages": said}
    async with client.post(path, json=body, headers=auth("admin")) as stream:
        assert stream.status == 200, await stream.text()
        response = _operation(document, "POST", "/agui/{agentId}")["responses"]["200"]
        assert stream.content_type in response["content"]
        assert "RUN_FINISHED" in await stream.text()
    return ("POST", path)


@pytest.fixture(name="client")
def _client(whole_app: Client) -> Client:
    return whole_app


@function_tool
async def issue_refund(order_id: str) -> str:
    """Refund an order.

    Args:
        order_id: the order number
    """
    return f"refunded {order_id}"


async def _decisions(
    pool: asyncpg.Pool,
    api_keys: tuple[ApiKey, ...],
    memory_config: MemoryConfig,
    model_server: ModelServer,
    document: dict[str, Any],
) -> set[tuple[str, str]]:
    """Held tools' routes over an app whose agent holds a tool: a turn parks (its answer
    carries the pending decision), the decision is listed, read and approved."""
    held = define_agent(
        name="refunds", instructions="Refunds.", tools=[issue_refund], interrupt_on=["issue_refund"]
    )
    chat = ChatConfig(base_url=model_server.url, api_key="test-key", timeout_seconds=5)
    app = create_app(
        pool=pool,
        catalog=Catalog([*build_catalog(), held]),
        api_keys=api_keys,
        memory_config=memory_config,
        chat=chat,
    )
    clients = AppClients()
    client = await clients.serve(app)
    try:
        model_server.call_tool("issue_refund", {"order_id": "A-1"})
        model_server.answer_text("Refunded.")
        body = {"model": "refunds", "messages": [{"role": "user", "content": "Refund"}]}
        headers = auth() | {"x-stackbone-session": "openapi-held"}
        parked = await client.post("/v1/chat/completions", json=body, headers=headers)
        parked_body = await parked.json()
        _check(document, "POST", "/v1/chat/completions", parked.status, parked_body)
        ident = parked_body["stackbone"]["decision"]["id"]
        answered = set()
        for method, path, sent in (
            ("GET", "/api/chat/decisions?status=pending", None),
            ("GET", f"/api/chat/decisions/{ident}", None),
            ("POST", f"/api/chat/decisions/{ident}", {"decision": "approve"}),
            ("POST", f"/api/chat/decisions/{ident}", {"decision": "approve"}),  # 409
        ):
            response = await client.request(method, path, json=sent, headers=auth())
            key = _check(document, method, path, response.status, await response.json())
            if key != "default":
                answered.add((method, path.split("?", 1)[0].replace(ident, "{decisionId}")))
        return answered
    finally:
        await clients.aclose()


async def _seed(memory: Memory, server: ModelServer) -> None:
    server.answer([add_op("Has a blue Corolla.")], "Asked about a service.")
    call = {"started_at": "2026-11-02T10:00:00+00:00", "duration_seconds": 83, "outcome": "ok"}
    assert (await memory.add("Worth keeping.", "support", USER, call)).error is None
    server.answer([update_op("f1", "Has a red Corolla.")], "Booked it.")
    assert (await memory.add("Worth keeping.", "support", USER)).error is None


async def _adds(
    client: Client, server: ModelServer, document: dict[str, Any]
) -> set[tuple[str, str]]:
    """The add route: a write, its retry under the same key (the first answer, no model
    call), the key with another body (409), a key without memory:write (403), blank content."""
    path, key = "/api/memory/customers/support/add", {"Idempotency-Key": "openapi-1"}
    server.answer([add_op("Moved to Madrid.")], "Moved.")
    sent = {"userId": USER, "content": "I moved to Madrid.", "call": {"channel": "crm"}}
    answered = set()
    for body, name, headers, status in (
        (sent, "memory-writer", key, 200),
        (sent, "memory-writer", key, 200),
        ({**sent, "content": "Another."}, "memory-writer", key, 409),
        (sent, "memory-reader", key, 403),
        ({**sent, "content": " "}, "admin", {}, 400),
    ):
        response = await client.post(path, json=body, headers={**auth(name), **headers})
        assert response.status == status, await response.text()
        if _check(document, "POST", path, status, await response.json()) != "default":
            answered.add(("POST", path))
    assert len(server.requests) == 3  # the seed's two adds and one add here
    return answered


def _operation(document: dict[str, Any], method: str, path: str) -> dict[str, Any]:
    bare = path.split("?", 1)[0]
    for template, operations in document["paths"].items():
        pattern = "^" + re.sub(r"{\w+}", "[^/]+", template) + "$"
        if re.match(pattern, bare) and method.lower() in operations:
            operation: dict[str, Any] = operations[method.lower()]
            return operation
    raise AssertionError(f"{method} {bare} is not in the document")


def _check(document: dict[str, Any], method: str, path: str, status: int, body: Any) -> str:
    """Validate one JSON answer; the response key it matched ('200', 'default', ...)."""
    responses = _operation(document, method, path)["responses"]
    key = str(status) if str(status) in responses else "default"
    assert key in responses, (method, path, status)
    schema = {
        **responses[key]["content"]["application/json"]["schema"],
        "components": document["components"],
    }
    errors = sorted(Draft202012Validator(schema).iter_errors(body), key=str)
    assert not errors, (method, path, status, [e.message for e in errors])
    if key == "default":
        assert status >= 400, (method, path, status)
    return key


@pytest.mark.pgvector
async def test_every_answer_matches_the_document(  # noqa: PLR0917 - its fixtures
    client: Client,
    memory: Memory,
    model_server: ModelServer,
    pool: asyncpg.Pool,
    api_keys: tuple[ApiKey, ...],
    memory_config: MemoryConfig,
) -> None:
    await _seed(memory, model_server)
    document = await (await client.get("/api/openapi.json")).json()
    added = await _adds(client, model_server, document)  # before the chat turns' answers
    model_server.answer_text("Hello.")  # the chat turn
    model_server.answer_text("Hello.")  # the Anthropic Messages turn
    Draft202012Validator.check_schema({"$defs": document["components"]["schemas"]})
    doc, answered = await _document_uploads(client, document)
    answered |= added
    answered.add(await _ops_stream(client, document))
    model_server.answer_text("Hello.")  # the AG-UI run
    answered.add(await _agui_run(client, document))
    statuses: set[int] = set()
    for method, template, body, key in CALLS:
        path = template.replace("{doc}", doc)
        headers = {} if key is None else auth(key)
        data = body if isinstance(body, str) else None if body is None else json.dumps(body)
        if path == "/v1/chat/completions":
            headers["x-stackbone-session"] = "openapi"
        response = await client.request(
            method, path, data=data, headers={**headers, "Content-Type": "application/json"}
        )
        assert response.content_type == "application/json", (method, path)
        matched = _check(document, method, path, response.status, await response.json())
        statuses.add(response.status)
        if matched != "default":
            answered.add((method, path.split("?", 1)[0]))
    answered |= await _decisions(pool, api_keys, memory_config, model_server, document)
    answered = {(m, p.replace(doc, "{documentId}")) for m, p in answered}
    documented = {
        (
            method.upper(),
            re.sub(r"{agentId}", "support", template)
            .replace("{sessionId}", SESSION_ID)
            .replace("{namespace}", "help"),
        )
        for template, operations in document["paths"].items()
        for method in operations
        if template not in PAGES
    }
    # every documented API operation answered successfully at least once (agent ids vary)
    normalised = {(m, re.sub(r"/(sales|support)(?=/|$)", "/support", p)) for m, p in answered}
    assert documented <= normalised, documented - normalised
    assert {400, 401, 403, 404, 409} <= statuses


async def test_every_route_of_the_app_is_documented(client: Client) -> None:
    document = await (await client.get("/api/openapi.json")).json()
    routes = {
        (route.method.lower(), route.resource.canonical)
        for route in client.app.router.routes()
        if route.resource is not None and route.method != "HEAD"
    }
    documented = {(m, p) for p, ops in document["paths"].items() for m in ops}
    assert routes == documented
    for operation in (ops for p, ops in document["paths"].items() if p.startswith("/api/")):
        for op in operation.values():
            assert "default" in op["responses"]  # errors are documented on every API route


async def test_pages_answer_as_documented(client: Client) -> None:
    document = await (await client.get("/api/openapi.json")).json()
    for path in PAGES:
        responses = document["paths"][path]["get"]["responses"]
        response = await client.get(path, allow_redirects=False)
        assert str(response.status) in responses, path
        if response.status == 200:
            [media] = responses["200"]["content"]
            assert response.content_type == media, path


def test_request_schemas_are_the_validating_models() -> None:
    from worker.http.routes import customers as routes_customers
    from worker.http.routes import search as routes_search
    from worker.http.routes.openapi import document
    from worker.http.web import PAGES as PAGE_ROUTES
    from worker.http.web import ROUTES

    doc = document(ROUTES, PAGE_ROUTES)
    schemas = doc["components"]["schemas"]
    assert schemas["SearchBody"] == routes_search.SearchBody.model_json_schema(by_alias=True)
    recall = doc["paths"]["/api/memory/customers/{agentId}/recall"]["post"]
    assert recall["requestBody"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/RecallBody"
    }
    assert "userId" in schemas["RecallBody"]["required"]
    assert routes_customers.RecallBody.__name__ == "RecallBody"
