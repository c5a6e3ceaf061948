"""The provider client: one POST with the key as a bearer token, failures named by kind."""

from __future__ import annotations

import json

import pytest

from memory.extraction._client import ProviderClient, ProviderRequestFailed, status_failure
from testkit.model_server import ModelServer

BODY = {"model": "m", "messages": [{"role": "user", "content": "caf\u00e9 \U0001f600"}]}


@pytest.mark.parametrize(
    ("status", "kind"),
    [
        (400, "BadRequestError"),
        (401, "AuthenticationError"),
        (403, "PermissionDeniedError"),
        (404, "NotFoundError"),
        (409, "ConflictError"),
        (418, "APIStatusError"),
        (422, "UnprocessableEntityError"),
        (429, "RateLimitError"),
        (499, "APIStatusError"),
        (500, "InternalServerError"),
        (503, "InternalServerError"),
        (302, "APIStatusError"),
    ],
)
def test_status_names_the_failure(status: int, kind: str) -> None:
    assert status_failure(status) == kind


async def test_one_post_with_the_bearer_key_and_the_body_as_sent(model_server: ModelServer) -> None:
    client = ProviderClient(model_server.url, "sk-test", timeout_seconds=5)
    model_server.answer_text("ok")
    answer = await client.post("/chat/completions", BODY)
    await client.aclose()
    assert model_server.requests == [BODY]
    headers = model_server.headers[0]
    assert headers["Authorization"] == "Bearer sk-test"
    assert headers["Content-Type"] == "application/json"
    assert answer.content_type is not None and "json" in answer.content_type
    assert json.loads(answer.body)["choices"][0]["message"]["content"] == "ok"


async def test_without_a_key_no_authorization_is_sent(model_server: ModelServer) -> None:
    client = ProviderClient(model_server.url + "/", None, timeout_seconds=5)
    model_server.answer_text("ok")
    await client.post("/chat/completions", BODY)
    await client.aclose()
    assert "Authorization" not in model_server.headers[0]


async def test_connections_are_kept_between_requests(model_server: ModelServer) -> None:
    client = ProviderClient(model_server.url, "k", timeout_seconds=5)
    for _ in range(3):
        model_server.answer_text("ok")
        await client.post("/chat/completions", BODY)
    await client.aclose()
    assert {h.get("Connection", "keep-alive").lower() for h in model_server.headers} == {
        "keep-alive"
    }


async def test_a_lone_surrogate_is_escaped_not_a_crash(model_server: ModelServer) -> None:
    client = ProviderClient(model_server.url, "k", timeout_seconds=5)
    model_server.answer_text("ok")
    await client.post("/chat/completions", {"messages": [{"content": "half \ud83d"}]})
    await client.aclose()
    assert len(model_server.requests) == 1


async def test_a_failed_status_is_named_and_its_body_is_not_kept(
    model_server: ModelServer,
) -> None:
    client = ProviderClient(model_server.url, "k", timeout_seconds=5)
    model_server.fail(401)
    with pytest.raises(ProviderRequestFailed) as failed:
        await client.post("/chat/completions", BODY)
    await client.aclose()
    assert failed.value.kind == "AuthenticationError" and str(failed.value) == failed.value.kind


async def test_timeout_and_connection_failures(model_server: ModelServer) -> None:
    slow = ProviderClient(model_server.url, "k", timeout_seconds=0.2)
    model_server.answer_text("late", delay=1.0)
    with pytest.raises(ProviderRequestFailed) as late:
        await slow.post("/chat/completions", BODY)
    await slow.aclose()
    assert late.value.kind == "APITimeoutError"
    model_server.answer_text("dropped", drop=True)
    dropped = ProviderClient(model_server.url, "k", timeout_seconds=5)
    with pytest.raises(ProviderRequestFailed) as cut:
        await dropped.post("/chat/completions", BODY)
    await dropped.aclose()
    assert cut.value.kind == "APIConnectionError"
    nowhere = ProviderClient("http://127.0.0.1:9/v1", "k", timeout_seconds=5)
    with pytest.raises(ProviderRequestFailed) as refused:
        await nowhere.post("/chat/completions", BODY)
    await nowhere.aclose()
    assert refused.value.kind == "APIConnectionError"
