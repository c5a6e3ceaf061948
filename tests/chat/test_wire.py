"""The chat wire driven by the official `openai` client against the real app, Postgres and the
local model server scripted to call the memory tools."""

from __future__ import annotations

import json
from typing import Any

import openai
import pytest

from memory.api import Memory
from testkit.model_server import ModelServer
from tests.chat.conftest import CONVERSATION_MODEL, MAX_STEPS, TOOL_TABLE, chat_headers
from tests.memory.helpers import add_op, stored
from tests.web_clients import Client

USER = "crm/person_42"
SECRET_FACT = "Keeps a spare key under the blue flowerpot."


def _tools(request: dict[str, Any]) -> list[str]:
    return [t["function"]["name"] for t in request.get("tools", [])]


def _tool_results(request: dict[str, Any]) -> list[Any]:
    return [json.loads(m["content"]) for m in request["messages"] if m["role"] == "tool"]


async def test_a_plain_turn_answers_in_openai_shape(
    openai_client: openai.AsyncOpenAI, model_server: ModelServer
) -> None:
    model_server.answer_text("Hello, how can I help?")
    reply = await openai_client.chat.completions.create(
        model="quiet", messages=[{"role": "user", "content": "Hi"}], temperature=0.2
    )
    assert reply.choices[0].message.content == "Hello, how can I help?"
    assert reply.model == "quiet"
    assert reply.usage is not None and reply.usage.total_tokens == 18
    sent = model_server.requests[-1]
    assert sent["model"] == CONVERSATION_MODEL and sent["temperature"] == 0.2
    assert sent["messages"][0]["role"] == "system"
    assert sent["messages"][1] == {"role": "user", "content": "Hi"}


@pytest.mark.parametrize(("agent", "tools"), TOOL_TABLE)
async def test_the_tools_follow_the_settings_table(
    openai_client: openai.AsyncOpenAI, model_server: ModelServer, agent: str, tools: list[str]
) -> None:
    model_server.answer_text("ok")
    await openai_client.chat.completions.create(
        model=agent, messages=[{"role": "user", "content": "Hi"}], user=USER
    )
    assert _tools(model_server.requests[-1]) == tools


async def test_without_a_customer_no_tools_are_offered(
    openai_client: openai.AsyncOpenAI, model_server: ModelServer
) -> None:
    model_server.answer_text("ok")
    await openai_client.chat.completions.create(
        model="both", messages=[{"role": "user", "content": "Hi"}]
    )
    assert "tools" not in model_server.requests[-1]


async def test_settings_are_read_each_turn(
    openai_client: openai.AsyncOpenAI, model_server: ModelServer, pool: Any
) -> None:
    model_server.answer_text("ok")
    model_server.answer_text("ok")
    hi: list[Any] = [{"role": "user", "content": "Hi"}]
    await openai_client.chat.completions.create(model="both", messages=hi, user=USER)
    await pool.execute(
        "insert into stackbone_platform.memory_agent_overrides (agent_id, save) values ($1, false)",
        "both",
    )
    await openai_client.chat.completions.create(model="both", messages=hi, user=USER)
    assert _tools(model_server.requests[0]) == ["memory_read", "memory_save"]
    assert _tools(model_server.requests[1]) == ["memory_read"]


async def test_memory_read_is_bound_to_the_agent_and_customer(
    openai_client: openai.AsyncOpenAI, model_server: ModelServer, memory: Memory
) -> None:
    model_server.answer([add_op(SECRET_FACT)], "Talked about keys.")
    assert (await memory.add("call", "reader", USER)).error is None
    model_server.answer([add_op("Someone else's fact.")], "Other.")
    assert (await memory.add("call", "reader", "crm/other")).error is None
    model_server.call_tool("memory_read", {"agentId": "both", "userId": "crm/other"})
    model_server.answer_text("You keep a spare key under the flowerpot.")
    reply = await openai_client.chat.completions.create(
        model="reader", messages=[{"role": "user", "content": "Where is my key?"}], user=USER
    )
    assert reply.choices[0].message.content == "You keep a spare key under the flowerpot."
    (result,) = _tool_results(model_server.requests[-1])
    assert result["facts"] == [SECRET_FACT]
    assert [c["summary"] for c in result["recentCalls"]] == ["Talked about keys."]


async def test_save_only_saves_for_the_bound_customer_and_shows_nothing_stored(
    openai_client: openai.AsyncOpenAI, model_server: ModelServer, memory: Memory, pool: Any
) -> None:
    model_server.answer([add_op(SECRET_FACT)], "Earlier call.")
    assert (await memory.add("call", "saver", USER)).error is None
    model_server.call_tool("memory_read")  # not offered: never runs
    model_server.call_tool("memory_save", {"content": "I prefer email.", "userId": "crm/other"})
    model_server.answer([add_op("Prefers email.")], "Asked to be emailed.")  # the extraction
    model_server.answer_text("Noted.")
    reply = await openai_client.chat.completions.create(
        model="saver", messages=[{"role": "user", "content": "Email me please"}], user=USER
    )
    assert reply.choices[0].message.content == "Noted."
    conversation = [r for r in model_server.requests if r.get("model") == CONVERSATION_MODEL]
    assert _tool_results(conversation[-2]) == [{"error": "unknown_tool"}]
    assert _tool_results(conversation[-1])[-1] == {"saved": True}
    for request in conversation:
        assert SECRET_FACT not in json.dumps(request)
    facts = [f["content"] for f in (await stored(pool, "saver", USER))["facts"]]
    assert facts == [SECRET_FACT, "Prefers email."]
    assert (await stored(pool, "saver", "crm/other"))["facts"] == []
    extraction = model_server.requests[-2]
    assert "I prefer email." in json.dumps(extraction)
    assert "Keep preferences." in json.dumps(extraction)  # the agent's memory instructions


async def test_the_tool_loop_is_bounded(
    openai_client: openai.AsyncOpenAI, model_server: ModelServer
) -> None:
    for _ in range(MAX_STEPS + 1):
        model_server.call_tool("memory_read")
    model_server.answer_text("Done.")
    before = len(model_server.requests)
    await openai_client.chat.completions.create(
        model="reader", messages=[{"role": "user", "content": "Hi"}], user=USER
    )
    sent = model_server.requests[before:]
    assert len(sent) == MAX_STEPS + 1
    assert [bool(_tools(r)) for r in sent] == [True] * MAX_STEPS + [False]


async def test_streaming_ends_with_done_and_carries_usage(
    openai_client: openai.AsyncOpenAI, model_server: ModelServer
) -> None:
    model_server.answer_text("Streamed answer.")
    stream = await openai_client.chat.completions.create(
        model="quiet",
        messages=[{"role": "user", "content": "Hi"}],
        stream=True,
        stream_options={"include_usage": True},
    )
    text, usage, finish = "", None, None
    async for chunk in stream:
        if chunk.usage is not None:
            usage = chunk.usage
        for choice in chunk.choices:
            text += choice.delta.content or ""
            finish = choice.finish_reason or finish
    assert text == "Streamed answer." and finish == "stop"
    assert usage is not None and usage.total_tokens == 18


async def test_the_raw_stream_is_server_sent_events(
    client: Client, model_server: ModelServer
) -> None:
    model_server.answer_text("Hi there.")
    body = {"model": "quiet", "messages": [{"role": "user", "content": "Hi"}], "stream": True}
    response = await client.post("/v1/chat/completions", json=body, headers=chat_headers())
    assert response.status == 200 and response.content_type == "text/event-stream"
    events = (await response.text()).strip().split("\n\n")
    assert events[-1] == "data: [DONE]"
    chunks = [json.loads(e.removeprefix("data: ")) for e in events[:-1]]
    deltas = [c["choices"][0]["delta"].get("content") for c in chunks]
    assert deltas == ["", "Hi ", "there.", None]


async def test_unknown_model_is_a_404_in_openai_shape(
    openai_client: openai.AsyncOpenAI, client: Client
) -> None:
    with pytest.raises(openai.NotFoundError) as caught:
        await openai_client.chat.completions.create(
            model="nobody", messages=[{"role": "user", "content": "Hi"}]
        )
    assert caught.value.code == "model_not_found"
    response = await client.post(
        "/v1/chat/completions",
        json={"model": "nobody", "messages": [{"role": "user", "content": "x"}]},
        headers=chat_headers(),
    )
    error = (await response.json())["error"]
    assert error["type"] == "not_found_error" and error["param"] == "model"
    assert {"message", "type", "code"} <= set(error)


async def test_the_chat_scope_is_required(client: Client) -> None:
    body = {"model": "quiet", "messages": [{"role": "user", "content": "x"}]}
    response = await client.post("/v1/chat/completions", json=body)
    assert response.status == 401
    assert (await response.json())["error"]["type"] == "authentication_error"


async def test_a_failing_model_is_a_clean_502(client: Client, model_server: ModelServer) -> None:
    model_server.fail(500)
    body = {"model": "quiet", "messages": [{"role": "user", "content": "x"}]}
    response = await client.post("/v1/chat/completions", json=body, headers=chat_headers())
    assert response.status == 502
    assert (await response.json())["error"]["code"] == "chat_model_failed"


async def test_a_stalled_model_is_a_504_within_the_timeout(
    make_client: Any, model_server: ModelServer
) -> None:
    client = await make_client(timeout_seconds=0.3)
    model_server.answer_text("late", delay=2.0)
    body = {"model": "quiet", "messages": [{"role": "user", "content": "x"}]}
    response = await client.post("/v1/chat/completions", json=body, headers=chat_headers())
    assert response.status == 504
    assert (await response.json())["error"]["code"] == "chat_model_timeout"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"model": "quiet", "messages": []}, "messages"),
        ({"model": "quiet", "messages": [{"role": "tool", "content": "x"}]}, "messages.0.role"),
        ({"model": "quiet", "messages": [{"role": "user", "content": "x"}], "tools": []}, "tools"),
        ({"model": "quiet", "messages": [{"role": "user", "content": "x"}], "n": 2}, "n"),
        ({"messages": [{"role": "user", "content": "x"}]}, "model"),
    ],
)
async def test_bodies_are_read_strictly(client: Client, body: Any, field: str) -> None:
    response = await client.post("/v1/chat/completions", json=body, headers=chat_headers())
    assert response.status == 400
    assert (await response.json())["error"]["field"] == field


async def test_duplicate_keys_are_refused(client: Client) -> None:
    raw = '{"model": "quiet", "model": "both", "messages": [{"role": "user", "content": "x"}]}'
    response = await client.post("/v1/chat/completions", data=raw, headers=chat_headers())
    assert response.status == 400
