"""Held tools and client tools over AG-UI: a held call ends the run with an interrupt, a run
that resumes it continues the turn with the stored identity; while it is pending a new run is
a 409 before any stream; a client's tool call ends the run with pendingToolCallIds and the
next run's tool message continues the turn on the same session."""

from __future__ import annotations

import json
from typing import Any

import asyncpg
import pytest
from ag_ui.core import (
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunFinishedSuccessOutcome,
    ToolCallResultEvent,
    ToolCallStartEvent,
)

from testkit.model_server import ModelServer
from tests.agui.conftest import CONVERSATION_MODEL, headers, parse_events, run_body, types
from tests.agui.outside import AGENT, OTHER
from tests.web_clients import Client

PATH = f"/agui/{AGENT}"
ASK = {"type": "object", "properties": {"question": {"type": "string"}}}


async def post(app: Client, body: dict[str, Any], path: str = PATH) -> tuple[int, Any]:
    async with app.post(path, json=body, headers=headers()) as answer:
        if answer.content_type == "application/json":
            return answer.status, (await answer.json())["error"]
        return answer.status, parse_events(await answer.text())


def finished(events: list[Any]) -> RunFinishedEvent:
    last = events[-1]
    assert isinstance(last, RunFinishedEvent), types(events)
    return last


async def park(app: Client, model_server: ModelServer) -> tuple[str, str]:
    """A run whose model calls the held tool: the interrupt's id and the call's id."""
    model_server.call_tool("issue_refund", {"order_id": "A-1", "amount": 10})
    status, events = await post(app, run_body())
    assert status == 200, events
    outcome = finished(events).outcome
    assert isinstance(outcome, RunFinishedInterruptOutcome)
    [interrupt] = outcome.interrupts
    assert types(events) == [
        "RUN_STARTED",
        "TOOL_CALL_START",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_END",
        "RUN_FINISHED",
    ]
    assert interrupt.reason == "tool_call" and interrupt.metadata is not None
    assert interrupt.metadata == {"tool": "issue_refund", "allowed": ["approve", "edit", "reject"]}
    assert interrupt.response_schema is not None
    assert set(interrupt.response_schema["properties"]) == {"approved", "editedArgs", "message"}
    assert interrupt.tool_call_id is not None
    return interrupt.id, interrupt.tool_call_id


def resume(interrupt: str, status: str = "resolved", **payload: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {"interruptId": interrupt, "status": status}
    if payload:
        entry["payload"] = payload
    return run_body(runId="run-2", resume=[entry])


@pytest.mark.parametrize(
    ("payload", "status", "result"),
    [
        ({"approved": True}, "resolved", "refunded 10 on A-1 for crm/42"),
        (
            {"approved": True, "editedArgs": {"order_id": "A-1", "amount": 5}},
            "resolved",
            "refunded 5 on A-1 for crm/42",
        ),
        ({"approved": False, "message": "Too much."}, "resolved", "Too much."),
        ({}, "cancelled", "rejected"),
    ],
)
async def test_a_held_call_interrupts_and_a_resume_decides_it(
    agui_app: Client,
    model_server: ModelServer,
    payload: dict[str, Any],
    status: str,
    result: str,
) -> None:
    interrupt, call = await park(agui_app, model_server)
    model_server.answer_text("Done.")
    answered, events = await post(agui_app, resume(interrupt, status, **payload))
    assert answered == 200, events
    [tool] = [e for e in events if isinstance(e, ToolCallResultEvent)]
    assert tool.tool_call_id == call and result in str(tool.content)
    assert types(events)[0] == "RUN_STARTED" and types(events)[1] == "TOOL_CALL_RESULT"
    assert isinstance(finished(events).outcome, RunFinishedSuccessOutcome)


async def test_while_a_decision_is_pending_a_new_run_is_409_and_a_replay_too(
    agui_app: Client, model_server: ModelServer
) -> None:
    interrupt, _ = await park(agui_app, model_server)
    status, error = await post(agui_app, run_body(runId="run-x"))
    assert (status, error["code"]) == (409, "decision_pending")
    assert interrupt in error["message"]
    model_server.answer_text("Done.")
    status, _ = await post(agui_app, resume(interrupt, approved=True))
    assert status == 200
    status, error = await post(agui_app, resume(interrupt, approved=True))
    assert (status, error["code"]) == (409, "decision_taken")


async def test_a_resume_claiming_another_customer_or_agent_runs_with_the_stored_one(
    agui_app: Client, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    interrupt, call = await park(agui_app, model_server)
    model_server.answer_text("Done.")
    assert call.startswith("call_")
    body = resume(interrupt, approved=True) | {"forwardedProps": {"customerId": "crm/evil"}}
    status, events = await post(agui_app, body, f"/agui/{OTHER}")
    assert status == 200, events
    [tool] = [e for e in events if isinstance(e, ToolCallResultEvent)]
    assert tool.content == "refunded 10 on A-1 for crm/42"
    system = model_server.requests[-1]["messages"][0]["content"]
    assert "shop's customers" in system  # desk's instructions, not other's
    users = await pool.fetch("select distinct user_id from stackbone_platform.chat_sessions")
    assert [r["user_id"] for r in users] == ["crm/42"]


async def test_a_resume_of_another_threads_interrupt_or_an_unknown_one_is_404(
    agui_app: Client, model_server: ModelServer
) -> None:
    interrupt, _ = await park(agui_app, model_server)
    status, error = await post(agui_app, resume(interrupt, approved=True) | {"threadId": "t2"})
    assert (status, error["code"]) == (404, "decision_not_found")
    status, error = await post(agui_app, resume("0" * 32, approved=True))
    assert status == 404


@pytest.mark.parametrize(
    ("entries", "field"),
    [
        ([], None),
        ([{"interruptId": "a", "status": "resolved", "payload": {}}], "resume[0].payload.approved"),
        (
            [{"interruptId": "a", "status": "resolved", "payload": {"approved": "yes"}}],
            "resume[0].payload.approved",
        ),
        (
            [
                {
                    "interruptId": "a",
                    "status": "resolved",
                    "payload": {"approved": True, "editedArgs": [1]},
                }
            ],
            "resume[0].payload.editedArgs",
        ),
        (
            [
                {
                    "interruptId": "a",
                    "status": "resolved",
                    "payload": {"approved": False, "message": "m" * 2001},
                }
            ],
            "resume[0].payload.message",
        ),
        (
            [
                {"interruptId": "a", "status": "cancelled"},
                {"interruptId": "b", "status": "cancelled"},
            ],
            "resume",
        ),
    ],
)
async def test_resume_entries_that_break_a_rule_name_it(
    agui_app: Client, entries: list[dict[str, Any]], field: str | None
) -> None:
    status, error = await post(agui_app, run_body(resume=entries))
    if field is None:  # an empty resume is no resume: an ordinary run (no model scripted: 502)
        assert status == 502
        return
    assert (status, error["field"]) == (400, field)


async def test_a_client_tool_ends_the_run_and_its_answer_continues_the_turn(
    agui_app: Client, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    tools = [{"name": "ask_user", "description": "Ask the person", "parameters": ASK}]
    model_server.call_tool("ask_user", {"question": "Proceed?"})
    status, events = await post(agui_app, run_body(tools=tools))
    assert status == 200, events
    outcome = finished(events).outcome
    [start] = [e for e in events if isinstance(e, ToolCallStartEvent)]
    assert isinstance(outcome, RunFinishedSuccessOutcome)
    assert outcome.pending_tool_call_ids == [start.tool_call_id]
    assert "TOOL_CALL_RESULT" not in types(events)
    offered = [t["function"]["name"] for t in model_server.requests[0]["tools"]]
    assert offered == ["lookup_order", "issue_refund", "ask_user"]
    history = [
        *run_body()["messages"],
        {
            "id": "a1",
            "role": "assistant",
            "toolCalls": [
                {
                    "id": start.tool_call_id,
                    "type": "function",
                    "function": {"name": "ask_user", "arguments": "{}"},
                }
            ],
        },
        {"id": "t1", "role": "tool", "toolCallId": start.tool_call_id, "content": "yes"},
    ]
    model_server.answer_text("Going ahead.")
    body = run_body(runId="run-2", tools=tools, messages=history)
    status, events = await post(agui_app, body)
    assert status == 200, events
    sent = model_server.requests[-1]["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "tool"]
    assert sent[-1] == {"role": "tool", "tool_call_id": start.tool_call_id, "content": "yes"}
    assert await pool.fetchval("select turns from stackbone_platform.chat_sessions") == 2


async def test_a_new_message_before_the_client_answers_its_call_is_refused(
    agui_app: Client, model_server: ModelServer
) -> None:
    tools = [{"name": "ask_user", "description": "Ask the person", "parameters": ASK}]
    model_server.call_tool("ask_user", {"question": "Proceed?"})
    await post(agui_app, run_body(tools=tools))
    said = [{"id": "u2", "role": "user", "content": "never mind"}]
    status, error = await post(agui_app, run_body(runId="run-2", tools=tools, messages=said))
    assert (status, error["field"]) == (400, "messages")
    assert "pending tool call" in error["message"]


@pytest.mark.parametrize(
    ("tools", "field"),
    [
        ([{"name": "lookup_order", "description": "mine"}], "tools[0].name"),
        (
            [{"name": "a", "description": ""}, {"name": "memory_read", "description": ""}],
            "tools[1].name",
        ),
        ([{"name": "a b", "description": ""}], "tools[0].name"),
        ([{"name": "a", "description": ""}, {"name": "a", "description": ""}], "tools[1].name"),
        ([{"name": "a", "description": "d" * 4001}], "tools[0].description"),
        ([{"name": "a", "description": "", "parameters": [1]}], "tools[0].parameters"),
        ([{"name": f"t{i}", "description": ""} for i in range(65)], "tools"),
    ],
)
async def test_client_tools_that_break_a_rule_are_refused(
    agui_app: Client, model_server: ModelServer, tools: list[dict[str, Any]], field: str
) -> None:
    status, error = await post(agui_app, run_body(tools=tools))
    assert (status, error["field"]) == (400, field)
    assert model_server.requests == []


async def test_client_tools_at_their_limits_are_offered(
    agui_app: Client, model_server: ModelServer
) -> None:
    tools = [{"name": f"t{i:02d}" + "x" * 61, "description": "d" * 4000} for i in range(64)]
    model_server.answer_text("Fine.")
    status, events = await post(agui_app, run_body(tools=tools))
    assert status == 200, events
    assert len(model_server.requests[0]["tools"]) == 2 + 64
    assert json.dumps(model_server.requests[0]["tools"][-1]["function"]["parameters"]) == (
        '{"type": "object", "properties": {}}'
    )
    assert model_server.requests[0]["model"] == CONVERSATION_MODEL
