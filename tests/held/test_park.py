"""A held tool parks the turn on its session: the OpenAI wire answers `tool_calls` with the
held call and the pending decision, the session answers 409 while it waits, and a decision
runs the call (or not) and finishes the turn. The agent listing names the held tools."""

from __future__ import annotations

import logging
from pathlib import Path

import openai
import pytest

from testkit.model_server import ModelServer
from tests.held.conftest import ADMIN_KEY, CHAT_KEY, bearer, ran
from tests.held.scripts import CUSTOMER, HEADERS, REFUND, decide, refund, session_turns, turn
from tests.web_clients import Client


async def test_a_held_call_parks_and_an_approval_finishes_the_turn(
    client: Client,
    openai_client: openai.AsyncOpenAI,
    model_server: ModelServer,
    ran_file: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    refund(model_server)
    completion = await openai_client.chat.completions.create(
        model="refunds", messages=[{"role": "user", "content": "Refund A-1"}], extra_headers=HEADERS
    )
    choice = completion.choices[0]
    assert choice.finish_reason == "tool_calls"
    [held] = choice.message.tool_calls or []
    assert held.type == "function" and held.id == "call_refund"
    assert held.function.name == "issue_refund"
    pending = (completion.model_extra or {})["stackbone"]["decision"]
    assert pending["tool"] == "issue_refund" and pending["status"] == "pending"
    assert pending["allowed"] == ["approve", "edit", "reject"]
    assert ran(ran_file) == []  # nothing ran yet

    status, body = await turn(client, "Hello?", CHAT_KEY)
    assert status == 409 and body["error"]["code"] == "decision_pending"
    assert pending["id"] in body["error"]["message"]

    model_server.answer_text("Refunded.")
    status, body = await decide(client, pending["id"], {"decision": "approve"})
    assert status == 200, body
    assert body["status"] == "approved" and body["reply"] == "Refunded."
    assert body["toolResult"]["result"] == "refunded 500 on A-1"
    assert body["held"] is None
    [done] = ran(ran_file)
    assert done == {
        "tool": "issue_refund",
        "arguments": REFUND,
        "user": CUSTOMER,
        "agent": "refunds",
    }

    model_server.answer_text("Anything else?")
    status, _ = await turn(client, "Thanks", CHAT_KEY)
    assert status == 200
    first, _second = await session_turns(client)
    [detail] = first["run"]["toolCalls"]
    assert detail["name"] == "issue_refund" and detail["decision"] == "approve"
    assert detail["result"] == "refunded 500 on A-1" and detail["durationMs"] >= 0
    logged = "\n".join(f"{r.getMessage()} {vars(r)}" for r in caplog.records if r.name != "httpx2")
    for private in ("A-1", "Refunded.", "Refund A-1"):  # arguments, results, messages
        assert private not in logged, private


async def test_the_agent_listing_names_each_held_tool_and_its_decisions(client: Client) -> None:
    response = await client.get("/api/memory/agents", headers=bearer(ADMIN_KEY))
    by_id = {a["agentId"]: a for a in (await response.json())["agents"]}
    assert by_id["refunds"]["tools"] == ["lookup_order", "issue_refund", "cancel_order"]
    assert by_id["refunds"]["heldTools"] == {
        "issue_refund": ["approve", "edit", "reject"],
        "cancel_order": ["approve", "reject"],
    }
    assert by_id["other-shop"]["heldTools"] == {"issue_refund": ["approve", "edit", "reject"]}
