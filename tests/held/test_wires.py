"""A held turn on each wire, read by the official clients: OpenAI (plain and streamed) and
Anthropic (plain and streamed) show the held call and the pending decision; a decision's
continued turn streams its tool result and the model's text as server-sent events."""

from __future__ import annotations

import json
from typing import Any

import anthropic
import openai

from testkit.model_server import ModelServer
from tests.held.conftest import CHAT_KEY, DECIDER_KEY, bearer
from tests.held.scripts import HEADERS, REFUND, refund, turn
from tests.web_clients import Client

MESSAGES: Any = [{"role": "user", "content": "Refund A-1"}]


async def test_openai_streamed_held_turn(
    client: Client, openai_client: openai.AsyncOpenAI, model_server: ModelServer
) -> None:
    refund(model_server)
    stream = await openai_client.chat.completions.create(
        model="refunds", messages=MESSAGES, extra_headers=HEADERS, stream=True
    )
    chunks = [chunk async for chunk in stream]
    [held] = [
        c.choices[0].delta.tool_calls for c in chunks if c.choices and c.choices[0].delta.tool_calls
    ]
    assert held[0].id == "call_refund" and held[0].function is not None
    assert json.loads(held[0].function.arguments or "") == REFUND
    last = chunks[-1]
    assert last.choices[0].finish_reason == "tool_calls"
    pending = (last.model_extra or {})["stackbone"]["decision"]
    assert pending["status"] == "pending" and pending["tool"] == "issue_refund"
    status, body = await turn(client, "Hi", CHAT_KEY)
    assert status == 409 and body["error"]["code"] == "decision_pending"


async def test_anthropic_held_turn(
    anthropic_client: anthropic.AsyncAnthropic, model_server: ModelServer
) -> None:
    refund(model_server)
    message = await anthropic_client.messages.create(
        model="refunds", max_tokens=100, messages=MESSAGES, extra_headers=HEADERS
    )
    assert message.stop_reason == "tool_use"
    [block] = message.content
    assert block.type == "tool_use" and block.name == "issue_refund" and block.input == REFUND
    assert block.id == "call_refund"
    pending = (message.model_extra or {})["stackbone"]["decision"]
    assert pending["allowed"] == ["approve", "edit", "reject"]
    try:
        await anthropic_client.messages.create(
            model="refunds", max_tokens=100, messages=MESSAGES, extra_headers=HEADERS
        )
    except anthropic.ConflictError as conflict:
        body: Any = conflict.body
        assert body["error"]["code"] == "decision_pending"
    else:
        raise AssertionError("a new message while a decision is pending must be refused")


async def test_anthropic_streamed_held_turn(
    client: Client, anthropic_client: anthropic.AsyncAnthropic, model_server: ModelServer
) -> None:
    refund(model_server)
    async with anthropic_client.messages.stream(
        model="refunds", max_tokens=100, messages=MESSAGES, extra_headers=HEADERS
    ) as stream:
        events = [event async for event in stream]
        message = await stream.get_final_message()
    assert message.stop_reason == "tool_use"
    [tool_use] = [b for b in message.content if b.type == "tool_use"]
    assert tool_use.name == "issue_refund" and tool_use.input == REFUND
    [delta] = [e for e in events if e.type == "message_delta"]
    pending = (delta.model_extra or {})["stackbone"]["decision"]
    decided = await client.get(f"/api/chat/decisions/{pending['id']}", headers=bearer(DECIDER_KEY))
    assert (await decided.json())["toolCallId"] == "call_refund"


async def test_a_decision_streams_its_continued_turn(
    client: Client, model_server: ModelServer
) -> None:
    refund(model_server)
    _, parked = await turn(client, "Refund A-1", CHAT_KEY)
    pending = parked["stackbone"]["decision"]
    model_server.answer_text("Refunded, thanks for waiting.")
    response = await client.post(
        f"/api/chat/decisions/{pending['id']}",
        json={"decision": "approve", "stream": True},
        headers=bearer(DECIDER_KEY),
    )
    assert response.status == 200
    assert response.content_type == "text/event-stream"
    events = _events(await response.text())
    names = [name for name, _ in events]
    assert names[0] == "tool_result" and names[-1] == "done" and "delta" in names
    assert events[0][1]["id"] == "call_refund" and events[0][1]["durationMs"] >= 0
    text = "".join(data["text"] for name, data in events if name == "delta")
    assert text == "Refunded, thanks for waiting."
    assert events[-1][1]["reply"] == text and events[-1][1]["status"] == "approved"


def _events(text: str) -> list[tuple[str, Any]]:
    out = []
    for frame in text.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in frame.splitlines())
        out.append((lines["event"], json.loads(lines["data"])))
    return out
