"""A tool that ran is never lost when the client goes away (issue 40, item 2): on each wire, a
streamed turn whose agent tool ran is cut by its client mid-answer; the session keeps what ran,
and the client's next turn records it as a cut turn first, so the model's next request holds
the call and its result, once, and the message that led to it, once (a client that sends that
message again with its next one, as AG-UI's does, is not read twice)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from testkit.model_server import ModelServer
from tests.held.conftest import CHAT_KEY, bearer, ran
from tests.held.scripts import CUSTOMER, HEADERS, SESSION_KEY, call, calls, session_turns
from tests.waiting import BUSY_MACHINE_SECONDS, eventually
from tests.web_clients import Client

WIRES = ["openai", "anthropic", "agui"]
ASKED, NEXT = "Where is order A-1?", "And when does it arrive?"
DELTA_MARK = b"one"  # the answer's first word, in any wire's shape


def _request(wire: str, said: list[str]) -> tuple[str, dict[str, Any], dict[str, str]]:
    """A streamed turn as the wire's clients send it (AG-UI's resends its history)."""
    if wire == "agui":
        history = [{"id": f"u{i}", "role": "user", "content": t} for i, t in enumerate(said)]
        body: dict[str, Any] = {
            "threadId": SESSION_KEY,
            "runId": f"run-{len(said)}",
            "state": {},
            "messages": history,
            "tools": [],
            "context": [],
            "forwardedProps": {"customerId": CUSTOMER},
        }
        return "/agui/refunds", body, bearer(CHAT_KEY)
    messages = [{"role": "user", "content": said[-1]}]
    if wire == "openai":
        body = {"model": "refunds", "messages": messages, "stream": True}
        return "/v1/chat/completions", body, bearer(CHAT_KEY) | HEADERS
    body = {"model": "refunds", "max_tokens": 100, "messages": messages, "stream": True}
    return "/v1/messages", body, {"x-api-key": CHAT_KEY, **HEADERS}


async def _cut_mid_answer(client: Client, wire: str) -> None:
    """The turn's client reads until the answer's first words, then goes away."""
    path, body, headers = _request(wire, [ASKED])
    response = await client.post(path, json=body, headers=headers)
    assert response.status == 200
    seen = b""
    async with asyncio.timeout(BUSY_MACHINE_SECONDS):  # a stream that stalls fails, never hangs
        while DELTA_MARK not in seen:
            chunk = await response.content.readany()
            assert chunk, seen  # the stream ended before the answer's first words
            seen += chunk
    response.close()


async def _next_turn(client: Client, wire: str) -> int:
    """The client's next turn, once the cut one has let go of the session."""
    path, body, headers = _request(wire, [ASKED, NEXT])

    async def sent() -> int | None:
        response = await client.post(path, json=body, headers=headers)
        await response.read()
        return None if response.status == 409 else response.status

    status: int = await eventually(sent, "the session free again")
    return status


@pytest.mark.parametrize("wire", WIRES)
async def test_a_tool_that_ran_before_the_client_left_reaches_the_next_turn(
    client: Client, model_server: ModelServer, ran_file: Path, wire: str
) -> None:
    calls(model_server, call("lookup_order", {"order_id": "A-1"}, "call_lookup"))
    # 1 s of answer after the first words: the client's departure reaches the model first
    model_server.answer_text("one two three four five six seven eight", pace=0.15)
    await _cut_mid_answer(client, wire)
    model_server.answer_text("It arrives on Friday.")
    assert await _next_turn(client, wire) == 200

    assert [r["tool"] for r in ran(ran_file)] == ["lookup_order"]  # ran once
    sent = model_server.requests[-1]["messages"]
    said = [m["content"] for m in sent if m["role"] == "user"]
    assert said == [ASKED, NEXT]  # the message that led to the call, once
    results = [m for m in sent if m["role"] == "tool"]
    assert [(m["tool_call_id"], m["content"]) for m in results] == [
        ("call_lookup", "order A-1: delivered")
    ]
    assert "one two" not in json.dumps(sent)  # an answer the client never got is not kept
    cut, kept = await session_turns(client)
    assert (cut["userMessage"], cut["reply"]) == (ASKED, "")
    assert [r["name"] for r in cut["run"]["toolCalls"]] == ["lookup_order"]
    assert (kept["userMessage"], kept["reply"]) == (NEXT, "It arrives on Friday.")
