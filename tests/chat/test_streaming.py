"""Token-by-token streaming on the OpenAI wire: the answer is relayed as the conversation model
writes it (the local model server paces its deltas), tool rounds run before it, usage comes last
when asked, and a client that goes away ends the model request and keeps nothing."""

from __future__ import annotations

import json
import time
from typing import Any

import openai

from testkit.fake_devices import wait_until
from testkit.model_server import ModelServer
from tests.chat.conftest import admin, chat_headers
from tests.waiting import BUSY_MACHINE_SECONDS
from tests.web_clients import Client, MakeClient

USER = "crm/person_7"
PACE = 0.15  # seconds before each streamed delta of the model server
HI: list[Any] = [{"role": "user", "content": "Hi"}]


async def test_the_first_chunk_arrives_before_the_model_finished(
    openai_client: openai.AsyncOpenAI, model_server: ModelServer
) -> None:
    model_server.answer_text("one two three four five", pace=PACE)
    stream = await openai_client.chat.completions.create(model="quiet", messages=HI, stream=True)
    pieces: list[str] = []
    first_text_at = None
    async for chunk in stream:
        text = chunk.choices[0].delta.content if chunk.choices else None
        if text and first_text_at is None:
            first_text_at = time.monotonic()
        pieces.append(text or "")
    assert "".join(pieces) == "one two three four five"
    assert [p for p in pieces if p] == ["one ", "two ", "three ", "four ", "five"]
    assert first_text_at is not None and first_text_at < model_server.answered_at[-1]
    assert model_server.requests[-1]["stream"] is True


async def test_tool_rounds_run_before_the_answer_streams(
    openai_client: openai.AsyncOpenAI, model_server: ModelServer
) -> None:
    model_server.call_tool("memory_read", {"userId": "crm/other"})
    model_server.answer_text("Nothing remembered yet.")
    stream = await openai_client.chat.completions.create(
        model="reader", messages=HI, user=USER, stream=True
    )
    text = "".join([c.choices[0].delta.content or "" async for c in stream if c.choices])
    assert text == "Nothing remembered yet."
    first, second = model_server.requests[-2:]
    assert first["stream"] is True and [t["function"]["name"] for t in first["tools"]] == [
        "memory_read"
    ]
    assert second["messages"][-2]["tool_calls"][0]["function"]["arguments"] == json.dumps(
        {"userId": "crm/other"}
    )  # the streamed call's arguments, joined from their halves
    assert json.loads(second["messages"][-1]["content"]) == {"facts": [], "recentCalls": []}


async def test_usage_only_in_the_last_chunk_and_only_when_asked(
    openai_client: openai.AsyncOpenAI, model_server: ModelServer
) -> None:
    model_server.answer_text("A short answer.")
    model_server.answer_text("A short answer.")
    asked = await openai_client.chat.completions.create(
        model="quiet", messages=HI, stream=True, stream_options={"include_usage": True}
    )
    chunks = [c async for c in asked]
    assert [c.usage is not None for c in chunks] == [False] * (len(chunks) - 1) + [True]
    assert chunks[-1].choices == [] and chunks[-1].usage is not None
    assert chunks[-1].usage.total_tokens == 18
    assert chunks[-2].choices[0].finish_reason == "stop"
    plain = await openai_client.chat.completions.create(model="quiet", messages=HI, stream=True)
    assert all([c.usage is None async for c in plain])


async def test_a_failure_before_any_text_is_a_json_error(
    openai_client: openai.AsyncOpenAI, model_server: ModelServer
) -> None:
    model_server.fail(500)
    try:
        await openai_client.chat.completions.create(model="quiet", messages=HI, stream=True)
    except openai.APIStatusError as exc:
        assert exc.status_code == 502 and exc.code == "chat_model_failed"
    else:
        raise AssertionError("a failed model answered 200")


async def _turns(client: Client, agent: str) -> list[dict[str, Any]]:
    listed = await (await client.get(f"/api/chat/sessions/{agent}", headers=admin())).json()
    found: list[dict[str, Any]] = []
    for session in listed["sessions"]:
        url = f"/api/chat/sessions/{agent}/{session['sessionId']}"
        found += (await (await client.get(url, headers=admin())).json())["turns"]
    return found


async def test_a_client_gone_mid_stream_ends_the_model_request_and_keeps_nothing(
    client: Client, model_server: ModelServer
) -> None:
    model_server.answer_text("one two three four five six seven eight", pace=PACE)
    body = {"model": "quiet", "messages": HI, "stream": True}
    session = chat_headers(**{"x-stackbone-session": "s-gone"})
    response = await client.post("/v1/chat/completions", json=body, headers=session)
    await response.content.readuntil(b"\n\n")  # the role
    first = await response.content.readuntil(b"\n\n")
    assert json.loads(first.removeprefix(b"data: "))["choices"][0]["delta"]["content"] == "one "
    response.close()  # the client goes away
    await wait_until(lambda: bool(model_server.streams_cut), within=BUSY_MACHINE_SECONDS)
    assert model_server.streams_cut == 1  # the model's stream was cut before its last delta
    assert model_server.answered_at == []
    assert await _turns(client, "quiet") == []
    model_server.answer_text("Fresh start.")  # the session is free again, its thread empty
    again = await client.post(
        "/v1/chat/completions", json={**body, "stream": False}, headers=session
    )
    assert again.status == 200
    assert model_server.requests[-1]["messages"][1:] == HI
    assert [t["reply"] for t in await _turns(client, "quiet")] == ["Fresh start."]


async def test_a_streamed_session_turn_is_kept_whole(
    openai_client: openai.AsyncOpenAI, model_server: ModelServer
) -> None:
    model_server.answer_text("First streamed answer.", pace=0.01)
    model_server.answer_text("Second.")
    session = {"x-stackbone-session": "s-whole"}
    stream = await openai_client.chat.completions.create(
        model="quiet", messages=HI, stream=True, extra_headers=session
    )
    assert [c async for c in stream]
    await openai_client.chat.completions.create(
        model="quiet", messages=[{"role": "user", "content": "And?"}], extra_headers=session
    )
    thread = model_server.requests[-1]["messages"][1:]
    assert thread == [
        *HI,
        {"role": "assistant", "content": "First streamed answer."},
        {"role": "user", "content": "And?"},
    ]


async def test_a_model_failing_mid_answer_ends_the_stream_with_an_error(
    openai_client: openai.AsyncOpenAI, model_server: ModelServer, client: Client
) -> None:
    model_server.answer_text("one two three four", cut_after=3)
    session = {"x-stackbone-session": "s-cut"}
    stream = await openai_client.chat.completions.create(
        model="quiet", messages=HI, stream=True, extra_headers=session
    )
    seen: list[str] = []
    try:
        async for chunk in stream:
            seen.append(chunk.choices[0].delta.content or "")
    except openai.APIError as exc:
        assert "conversation model failed" in exc.message
    else:
        raise AssertionError("a cut stream ended as if complete")
    assert "".join(seen) == "one two "
    assert await _turns(client, "quiet") == []  # nothing kept; the session is free again
    model_server.answer_text("Again.")
    again = await openai_client.chat.completions.create(
        model="quiet", messages=HI, extra_headers=session
    )
    assert again.choices[0].message.content == "Again."


async def test_a_stalled_streaming_model_is_a_504_within_the_timeout(
    make_client: MakeClient, model_server: ModelServer
) -> None:
    client = await make_client(timeout_seconds=0.3)
    model_server.answer_text("late", pace=2.0)  # not one delta within the timeout
    body = {"model": "quiet", "messages": HI, "stream": True}
    response = await client.post("/v1/chat/completions", json=body, headers=chat_headers())
    assert response.status == 504  # the timeout's own answer: the model had not finished
    assert (await response.json())["error"]["code"] == "chat_model_timeout"
