"""The Anthropic Messages wire driven by the official `anthropic` client against the real app,
Postgres and the local model server: the same turn as the OpenAI wire (tools, identity,
sessions), in Anthropic's answer, error and stream shapes."""

from __future__ import annotations

import json
import time
from typing import Any

import anthropic
import pytest

from memory.api import Memory
from testkit.model_server import ModelServer
from tests.chat.conftest import ADMIN_KEY, CHAT_KEY, CONVERSATION_MODEL, TOOL_TABLE
from tests.memory.helpers import add_op
from tests.web_clients import Client

USER = "crm/person_9"
HI: list[Any] = [{"role": "user", "content": "Hi"}]
SECRET_FACT = "Parks in bay 12."


def _tools(request: dict[str, Any]) -> list[str]:
    return [t["function"]["name"] for t in request.get("tools", [])]


def _key(**extra: str) -> dict[str, str]:
    return {"x-api-key": CHAT_KEY, "anthropic-version": "2023-06-01", **extra}


async def _post(client: Client, body: Any, **headers: str) -> Any:
    data = body if isinstance(body, str | bytes) else json.dumps(body)
    return await client.post(
        "/v1/messages", data=data, headers={"Content-Type": "application/json", **headers}
    )


async def test_a_plain_turn_answers_in_anthropic_shape(
    anthropic_client: anthropic.AsyncAnthropic, model_server: ModelServer
) -> None:
    model_server.answer_text("Hello from the agent.")
    reply = await anthropic_client.messages.create(
        model="quiet", max_tokens=300, system="Be brief.", messages=HI, temperature=0.5
    )
    assert reply.type == "message" and reply.role == "assistant" and reply.model == "quiet"
    assert [(b.type, getattr(b, "text", None)) for b in reply.content] == [
        ("text", "Hello from the agent.")
    ]
    assert reply.stop_reason == "end_turn"
    assert (reply.usage.input_tokens, reply.usage.output_tokens) == (11, 7)
    sent = model_server.requests[-1]
    assert sent["model"] == CONVERSATION_MODEL and sent["max_completion_tokens"] == 300
    assert sent["temperature"] == 0.5
    assert [m["role"] for m in sent["messages"]] == ["system", "system", "user"]
    assert sent["messages"][1:] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Hi"},
    ]


async def test_a_length_stop_is_max_tokens(
    anthropic_client: anthropic.AsyncAnthropic, model_server: ModelServer
) -> None:
    model_server.answer_text("Cut sh", finish_reason="length")
    reply = await anthropic_client.messages.create(model="quiet", max_tokens=2, messages=HI)
    assert reply.stop_reason == "max_tokens"


@pytest.mark.parametrize(("agent", "tools"), TOOL_TABLE)
async def test_the_tools_follow_the_settings_table(
    anthropic_client: anthropic.AsyncAnthropic,
    model_server: ModelServer,
    agent: str,
    tools: list[str],
) -> None:
    model_server.answer_text("ok")
    await anthropic_client.messages.create(
        model=agent, max_tokens=50, messages=HI, metadata={"user_id": USER}
    )
    assert _tools(model_server.requests[-1]) == tools


async def test_memory_read_is_bound_to_metadata_user_id(
    anthropic_client: anthropic.AsyncAnthropic, model_server: ModelServer, memory: Memory
) -> None:
    model_server.answer([add_op(SECRET_FACT)], "Talked about parking.")
    assert (await memory.add("call", "reader", USER)).error is None
    model_server.call_tool("memory_read", {"agentId": "both", "userId": "crm/other"})
    model_server.answer_text("Bay 12.")
    reply = await anthropic_client.messages.create(
        model="reader", max_tokens=50, messages=HI, metadata={"user_id": USER}
    )
    assert reply.content[0].type == "text" and reply.content[0].text == "Bay 12."
    result = json.loads(model_server.requests[-1]["messages"][-1]["content"])
    assert result["facts"] == [SECRET_FACT]


async def test_streaming_relays_the_model_as_it_writes(
    anthropic_client: anthropic.AsyncAnthropic, model_server: ModelServer
) -> None:
    model_server.call_tool("memory_read")
    model_server.answer_text("one two three four", pace=0.15)
    first_text_at = None
    async with anthropic_client.messages.stream(
        model="reader", max_tokens=50, messages=HI, metadata={"user_id": USER}
    ) as stream:
        pieces = []
        async for text in stream.text_stream:
            first_text_at = first_text_at or time.monotonic()
            pieces.append(text)
        final = await stream.get_final_message()
    assert pieces == ["one ", "two ", "three ", "four"]
    assert first_text_at is not None and first_text_at < model_server.answered_at[-1]
    assert final.content[0].type == "text" and final.content[0].text == "one two three four"
    assert final.stop_reason == "end_turn"
    assert (final.usage.input_tokens, final.usage.output_tokens) == (22, 14)  # two steps


async def test_the_raw_stream_is_anthropic_events(
    client: Client, model_server: ModelServer
) -> None:
    model_server.answer_text("Hi there.")
    body = {"model": "quiet", "max_tokens": 20, "messages": HI, "stream": True}
    response = await _post(client, body, **_key())
    assert response.status == 200 and response.content_type == "text/event-stream"
    events = [e.split("\n") for e in (await response.text()).strip().split("\n\n")]
    names = [e[0].removeprefix("event: ") for e in events]
    assert names == [
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    data = [json.loads(e[1].removeprefix("data: ")) for e in events]
    assert [d["type"] for d in data] == names
    assert [d["delta"]["text"] for d in data if d["type"] == "content_block_delta"] == [
        "Hi ",
        "there.",
    ]


async def test_a_streamed_failure_before_text_is_an_anthropic_error(
    anthropic_client: anthropic.AsyncAnthropic, model_server: ModelServer
) -> None:
    model_server.fail(500)
    with pytest.raises(anthropic.APIStatusError) as caught:
        await anthropic_client.messages.create(
            model="quiet", max_tokens=5, messages=HI, stream=True
        )
    assert caught.value.status_code == 502
    body: Any = caught.value.body
    assert body["type"] == "error" and body["error"]["type"] == "api_error"
    assert body["error"]["code"] == "chat_model_failed"


async def test_the_key_as_x_api_key_or_bearer(client: Client, model_server: ModelServer) -> None:
    model_server.answer_text("a")
    model_server.answer_text("b")
    body = {"model": "quiet", "max_tokens": 5, "messages": HI}
    assert (await _post(client, body, **_key())).status == 200
    bearer = await _post(client, body, Authorization=f"Bearer {CHAT_KEY}")
    assert bearer.status == 200
    none = await _post(client, body)
    assert none.status == 401
    assert (await none.json())["error"]["type"] == "authentication_error"
    both = await _post(client, body, Authorization=f"Bearer {CHAT_KEY}", **_key())
    assert both.status == 401
    wrong_scope = await _post(client, body, **{"x-api-key": ADMIN_KEY})
    assert wrong_scope.status == 403
    assert (await wrong_scope.json())["error"]["type"] == "permission_error"
    elsewhere = await client.post("/v1/chat/completions", json=body, headers=_key())
    assert elsewhere.status == 401  # x-api-key is taken on the Anthropic wire only


async def test_unknown_model_is_a_404_in_anthropic_shape(
    anthropic_client: anthropic.AsyncAnthropic,
) -> None:
    with pytest.raises(anthropic.NotFoundError) as caught:
        await anthropic_client.messages.create(model="nobody", max_tokens=5, messages=HI)
    body: Any = caught.value.body
    assert body == {
        "type": "error",
        "error": {
            "type": "not_found_error",
            "code": "model_not_found",
            "message": "model: no agent with this id is declared",
            "field": "model",
        },
    }


async def test_metadata_user_id_limits(client: Client, model_server: ModelServer) -> None:
    model_server.answer_text("ok")
    body = {"model": "both", "max_tokens": 5, "messages": HI}
    ok = await _post(client, {**body, "metadata": {"user_id": "u" * 500}}, **_key())
    assert ok.status == 200 and _tools(model_server.requests[-1]) == ["memory_read", "memory_save"]
    past = await _post(client, {**body, "metadata": {"user_id": "u" * 501}}, **_key())
    assert past.status == 400
    error = (await past.json())["error"]
    assert error["field"] == "metadata.user_id" and error["type"] == "invalid_request_error"


async def test_the_identities_header_applies(client: Client, model_server: ModelServer) -> None:
    model_server.answer_text("ok")
    body = {"model": "email", "max_tokens": 5, "messages": HI}
    ids = json.dumps({"contact.email": "ana@example.com"})
    assert (await _post(client, body, **_key(**{"x-stackbone-identities": ids}))).status == 200
    assert _tools(model_server.requests[-1]) == ["memory_read", "memory_save"]
    bad = await _post(client, body, **_key(**{"x-stackbone-identities": "[1]"}))
    assert bad.status == 400
    assert (await bad.json())["error"]["field"] == "x-stackbone-identities"


async def test_a_session_keeps_the_thread(client: Client, model_server: ModelServer) -> None:
    model_server.answer_text("It ships Monday.")
    model_server.answer_text("Yes.")
    session = _key(**{"x-stackbone-session": "anthropic-1"})
    first = {"model": "quiet", "max_tokens": 5, "messages": [{"role": "user", "content": "When?"}]}
    assert (await _post(client, first, **session)).status == 200
    second = {
        **first,
        "messages": [{"role": "user", "content": [{"type": "text", "text": "Sure?"}]}],
    }
    assert (await _post(client, second, **session)).status == 200
    assert model_server.requests[-1]["messages"][1:] == [
        {"role": "user", "content": "When?"},
        {"role": "assistant", "content": "It ships Monday."},
        {"role": "user", "content": "Sure?"},
    ]
    both = _key(**{"x-stackbone-session": "a", "x-stackbone-conversation": "b"})
    assert (await _post(client, first, **both)).status == 400


def _messages(count: int, chars: int = 1) -> list[dict[str, Any]]:
    return [{"role": "user", "content": "x" * chars}] * count


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"messages": _messages(256)}, None),
        ({"messages": _messages(257)}, "messages"),
        ({"messages": _messages(1, 100_000)}, None),
        ({"messages": _messages(1, 100_001)}, "messages.0.content.0.text"),
        ({"messages": [{"role": "user", "content": [{"type": "text", "text": "x"}] * 64}]}, None),
        (
            {"messages": [{"role": "user", "content": [{"type": "text", "text": "x"}] * 65}]},
            "messages.0.content",
        ),
        ({"system": "s" * 100_000}, None),
        ({"system": "s" * 100_001}, "system.0.text"),
        ({"max_tokens": 1}, None),
        ({"max_tokens": 0}, "max_tokens"),
        ({"max_tokens": 1_000_001}, "max_tokens"),
        ({"temperature": 1.0}, None),
        ({"temperature": 1.01}, "temperature"),
        ({"messages": []}, "messages"),
        ({"tools": []}, "tools"),
        ({"messages": [{"role": "system", "content": "x"}]}, "messages.0.role"),
        (
            {"messages": [{"role": "user", "content": [{"type": "image", "source": {}}]}]},
            "messages.0.content.0.type",
        ),
        ({"metadata": {"user_id": "u", "other": 1}}, "metadata.other"),
    ],
)
async def test_bodies_are_read_strictly_at_and_past_each_limit(
    client: Client, model_server: ModelServer, change: dict[str, Any], field: str | None
) -> None:
    model_server.answer_text("ok")
    body = {"model": "quiet", "max_tokens": 5, "messages": HI, **change}
    response = await _post(client, body, **_key())
    if field is None:
        assert response.status == 200, await response.text()
        return
    assert response.status == 400
    error = (await response.json())["error"]
    assert error["field"] == field and error["type"] == "invalid_request_error"


async def test_max_tokens_is_required_and_keys_are_unique(client: Client) -> None:
    missing = await _post(client, {"model": "quiet", "messages": HI}, **_key())
    assert (await missing.json())["error"]["field"] == "max_tokens"
    hi = '[{"role": "user", "content": "x"}]'
    raw = '{"model": "quiet", "model": "both", "max_tokens": 5, "messages": ' + hi + "}"
    duplicate = await _post(client, raw, **_key())
    assert duplicate.status == 400
    assert "more than once" in (await duplicate.json())["error"]["message"]


async def test_the_body_limit_at_and_past_it(client: Client, model_server: ModelServer) -> None:
    model_server.answer_text("ok")
    core = json.dumps({"model": "quiet", "max_tokens": 5, "messages": HI}).encode()
    limit = 1024**2
    at = core[:-1] + b" " * (limit - len(core)) + b"}"
    assert (await _post(client, at, **_key())).status == 200
    past = await _post(client, at[:-1] + b" }", **_key())
    assert past.status == 413
    assert (await past.json())["error"]["type"] == "request_too_large"


async def test_a_model_failing_mid_answer_is_an_error_event(
    anthropic_client: anthropic.AsyncAnthropic, model_server: ModelServer
) -> None:
    model_server.answer_text("one two three four", cut_after=3)
    seen: list[str] = []
    with pytest.raises(anthropic.APIStatusError) as caught:
        async with anthropic_client.messages.stream(
            model="quiet", max_tokens=5, messages=HI
        ) as stream:
            async for text in stream.text_stream:
                seen.append(text)
    assert seen == ["one ", "two "]
    body: Any = caught.value.body
    assert body["type"] == "error" and body["error"]["code"] == "chat_model_failed"


async def test_model_and_top_p_at_and_past_their_limits(client: Client) -> None:
    body = {"max_tokens": 5, "messages": HI}
    at = await _post(client, {**body, "model": "m" * 200}, **_key())  # an agent id's limit
    assert at.status == 404  # read, then looked up: no such agent
    past = await _post(client, {**body, "model": "m" * 201}, **_key())
    assert past.status == 400 and (await past.json())["error"]["field"] == "model"
    top = await _post(client, {**body, "model": "m", "top_p": 1.01}, **_key())
    assert top.status == 400 and (await top.json())["error"]["field"] == "top_p"
