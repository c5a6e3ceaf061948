"""A text turn runs the agent's own function tools and `search_docs` over its collections, and
every way a tool can fail (an exception, its deadline, arguments that break its schema, its own
`ToolError`, a name it does not have) becomes a tool result the model reads: the turn completes.
The agent is defined in a package outside this repository (`tests/agents/outside.py`)."""

from __future__ import annotations

import json
import logging
from typing import Any

import asyncpg
import openai
import pytest

from testkit.model_server import ModelServer
from tests.agents.conftest import CONVERSATION_MODEL, RETURNS, seed_collection
from tests.agents.outside import AGENT, SECRET, TOOL_SECONDS

CUSTOMER = "+34600111444"
IDENTITIES = {"x-stackbone-identities": json.dumps({"phoneNumber": CUSTOMER})}


def tool_results(request: dict[str, Any]) -> list[Any]:
    out = []
    for message in request["messages"]:
        if message["role"] == "tool":
            try:
                out.append(json.loads(message["content"]))
            except ValueError:
                out.append(message["content"])
    return out


def conversation(model_server: ModelServer) -> list[dict[str, Any]]:
    return [r for r in model_server.requests if r.get("model") == CONVERSATION_MODEL]


async def ask(client: openai.AsyncOpenAI, text: str) -> str | None:
    reply = await client.chat.completions.create(
        model=AGENT, messages=[{"role": "user", "content": text}], extra_headers=IDENTITIES
    )
    return reply.choices[0].message.content


async def test_a_turn_calls_the_agents_tool_and_search_docs(
    shop_openai: openai.AsyncOpenAI, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    await seed_collection(pool, model_server)
    model_server.call_tool("lookup_order", {"order_id": "A-100", "agentId": "other"})
    model_server.call_tool("search_docs", {"query": "send back refund"})
    model_server.answer_text("It shipped Monday; returns take thirty days.")
    answer = await ask(shop_openai, "Where is order A-100, and can I return it?")
    assert answer == "It shipped Monday; returns take thirty days."
    first, *_, last = conversation(model_server)
    offered = sorted(t["function"]["name"] for t in first["tools"])
    assert offered == ["lookup_order", "memory_read", "memory_save", "search_docs"]
    [schema] = [t["function"] for t in first["tools"] if t["function"]["name"] == "lookup_order"]
    assert schema["parameters"]["required"] == ["order_id"]  # livekit's own schema
    order, found = tool_results(last)
    assert order == f"order A-100 of {CUSTOMER} at {AGENT}: shipped on Monday"  # bound, not args
    assert RETURNS in found and found.startswith("[")


@pytest.mark.parametrize(
    ("arguments", "code"),
    [
        ({"order_id": "BOOM"}, "tool_failed"),
        ({"order_id": "SLOW"}, "tool_timeout"),
        ({}, "invalid_arguments"),
        ({"order_id": ["A-100"]}, "invalid_arguments"),
        ("not json at all {", "invalid_arguments"),
        ({"order_id": "Z-999"}, "tool_refused"),
    ],
)
async def test_a_failing_tool_is_a_result_the_model_reads(
    shop_openai: openai.AsyncOpenAI,
    model_server: ModelServer,
    caplog: pytest.LogCaptureFixture,
    arguments: dict[str, Any] | str,
    code: str,
) -> None:
    caplog.set_level(logging.DEBUG)
    model_server.call_tool("lookup_order", arguments)
    model_server.answer_text("Sorry, I cannot see that order right now.")
    assert (
        await ask(shop_openai, "Where is my order?") == "Sorry, I cannot see that order right now."
    )
    [result] = tool_results(conversation(model_server)[-1])
    assert result["error"] == code
    assert SECRET not in json.dumps(result) and "Traceback" not in json.dumps(result)
    if code == "invalid_arguments" and arguments == {}:
        assert result["message"].startswith("order_id: ")  # the field and the rule
    if code == "tool_timeout":
        assert f"{TOOL_SECONDS:g} s" in result["message"]
    if code == "tool_refused":
        assert result["message"] == "no order with that number"
    logged = "\n".join(f"{r.getMessage()} {vars(r)}" for r in caplog.records)
    assert SECRET not in logged and "Traceback" not in logged
    turn = [r for r in caplog.records if r.getMessage() == "chat.turn"]
    assert turn and code in repr(vars(turn[-1]))


async def test_a_tool_the_agent_does_not_have_is_unknown(
    shop_openai: openai.AsyncOpenAI, model_server: ModelServer
) -> None:
    model_server.call_tool("drop_tables", {})
    model_server.answer_text("Done.")
    assert await ask(shop_openai, "Hi") == "Done."
    assert tool_results(conversation(model_server)[-1]) == [{"error": "unknown_tool"}]
