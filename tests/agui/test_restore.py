"""A connect run (no new message, no resume) gives the thread back from the server: one
`MESSAGES_SNAPSHOT` with the thread's messages (tool calls and results included), ended as the
thread's last run ended (the same interrupt while a decision waits), with no model request;
while a decision waits, a run with a new message is a 409 naming `threadId` with the pending
call as structured fields."""

from __future__ import annotations

from typing import Any

import asyncpg
from ag_ui.core import (
    AssistantMessage,
    Message,
    MessagesSnapshotEvent,
    RunFinishedInterruptOutcome,
    RunFinishedSuccessOutcome,
    ToolMessage,
    UserMessage,
)
from pydantic import TypeAdapter

from chat.restore import Restored, ThreadMessage
from testkit.model_server import ModelServer
from tests.agui.conftest import run_body, types
from tests.agui.test_held import ASK, finished, park, post, resume
from tests.web_clients import Client
from worker.http.wires.agui_restore import snapshot

MESSAGE: TypeAdapter[Message] = TypeAdapter(Message)
CONNECT: dict[str, Any] = {"runId": "run-connect", "messages": []}


def snapshot_of(events: list[Any]) -> list[Any]:
    assert types(events) == ["RUN_STARTED", "MESSAGES_SNAPSHOT", "RUN_FINISHED"], types(events)
    found = events[1]
    assert isinstance(found, MessagesSnapshotEvent)
    return list(found.messages)


async def test_a_connect_run_gives_the_thread_with_tool_calls_and_results(
    agui_app: Client, model_server: ModelServer
) -> None:
    model_server.call_tool("lookup_order", {"order_id": "A-1"})
    model_server.answer_text("Order A-1 has shipped.")
    status, _ = await post(agui_app, run_body())
    assert status == 200
    asked = len(model_server.requests)

    status, events = await post(agui_app, run_body(**CONNECT))
    assert status == 200, events
    messages = snapshot_of(events)
    assert len(model_server.requests) == asked  # no model request
    user, called, result, answer = messages
    assert isinstance(user, UserMessage) and user.content == "Where is order A-1?"
    assert isinstance(called, AssistantMessage) and called.tool_calls is not None
    [call] = called.tool_calls
    assert call.function.name == "lookup_order"
    assert isinstance(result, ToolMessage) and result.tool_call_id == call.id
    assert result.content == "order A-1 of crm/42 at desk: shipped"
    assert isinstance(answer, AssistantMessage) and answer.content == "Order A-1 has shipped."
    assert isinstance(finished(events).outcome, RunFinishedSuccessOutcome)

    again = snapshot_of((await post(agui_app, run_body(**CONNECT)))[1])
    assert [m.id for m in again] == [m.id for m in messages]  # ids stable across reads


async def test_a_connect_run_while_a_decision_waits_ends_with_the_same_interrupt(
    agui_app: Client, model_server: ModelServer
) -> None:
    model_server.call_tool("issue_refund", {"order_id": "A-1", "amount": 10})
    status, parked = await post(agui_app, run_body())
    assert status == 200, parked
    first = finished(parked).outcome
    assert isinstance(first, RunFinishedInterruptOutcome)
    [interrupt] = [i.id for i in first.interrupts]
    call = first.interrupts[0].tool_call_id
    asked = len(model_server.requests)

    status, events = await post(agui_app, run_body(**CONNECT))
    assert status == 200, events
    user, held = snapshot_of(events)
    assert len(model_server.requests) == asked
    assert isinstance(user, UserMessage) and user.content == "Where is order A-1?"
    assert isinstance(held, AssistantMessage) and held.tool_calls is not None
    assert [c.id for c in held.tool_calls] == [call]
    ended = finished(events).outcome
    assert isinstance(ended, RunFinishedInterruptOutcome)
    [again] = ended.interrupts
    assert again.id == interrupt and again.tool_call_id == call
    assert again.metadata == {"tool": "issue_refund", "allowed": ["approve", "edit", "reject"]}
    assert ended == first  # a connect run ends as the parked run did

    model_server.answer_text("Refunded.")  # the restored interrupt is resumed as the first
    status, events = await post(agui_app, resume(interrupt, approved=True))
    assert status == 200, events
    after = snapshot_of((await post(agui_app, run_body(**CONNECT)))[1])
    assert [m.id for m in after[:2]] == [m.id for m in [user, held]]
    assert isinstance(after[-1], AssistantMessage) and after[-1].content == "Refunded."
    assert isinstance(finished(events).outcome, RunFinishedSuccessOutcome)


async def test_a_run_with_a_new_message_while_a_decision_waits_is_409_naming_threadId(
    agui_app: Client, model_server: ModelServer
) -> None:
    interrupt, call = await park(agui_app, model_server)
    said = [{"id": "u2", "role": "user", "content": "Hello?"}]
    status, error = await post(agui_app, run_body(runId="run-x", messages=said))
    assert (status, error["code"], error["field"]) == (409, "decision_pending", "threadId")
    assert error["decision"] == {
        "id": interrupt,
        "toolCallId": call,
        "tool": "issue_refund",
        "arguments": '{"order_id": "A-1", "amount": 10}',
        "allowed": ["approve", "edit", "reject"],
    }
    assert "x-stackbone-session" not in error["message"]


async def test_a_connect_run_on_an_unknown_thread_or_for_another_customer_is_empty(
    agui_app: Client, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    status, events = await post(agui_app, run_body(thread="never-used", **CONNECT))
    assert status == 200 and snapshot_of(events) == []
    assert isinstance(finished(events).outcome, RunFinishedSuccessOutcome)
    assert await pool.fetchval("select count(*) from stackbone_platform.chat_sessions") == 0

    await park(agui_app, model_server)
    other = run_body(**CONNECT) | {"forwardedProps": {"customerId": "crm/43"}}
    status, events = await post(agui_app, other)
    assert status == 200 and snapshot_of(events) == []  # that thread is crm/42's
    assert isinstance(finished(events).outcome, RunFinishedSuccessOutcome)
    assert model_server.requests and len(model_server.requests) == 1


async def test_a_connect_run_names_the_client_calls_still_waiting(
    agui_app: Client, model_server: ModelServer
) -> None:
    model_server.call_tool("ask_user", {"question": "Proceed?"})
    tools = [{"name": "ask_user", "description": "Ask the person", "parameters": ASK}]
    status, events = await post(agui_app, run_body(tools=tools))
    assert status == 200, events
    waiting = finished(events).outcome
    assert isinstance(waiting, RunFinishedSuccessOutcome) and waiting.pending_tool_call_ids

    status, events = await post(agui_app, run_body(tools=tools, **CONNECT))
    assert status == 200
    assert [m.role for m in snapshot_of(events)] == ["user", "assistant"]
    assert finished(events).outcome == waiting


def test_every_stored_role_reads_as_an_ag_ui_message() -> None:
    """Messages another wire kept on the same session (system, developer, text parts, a tool
    call with no text) are valid AG-UI messages, as the package reads them."""
    stored: list[dict[str, Any]] = [
        {"role": "system", "content": "Be brief."},
        {"role": "developer", "content": "Use tools."},
        {
            "role": "user",
            "content": [{"type": "text", "text": "Hi "}, {"type": "text", "text": "there"}],
        },
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
        {"role": "assistant", "content": "Done."},
    ]
    restored = Restored([ThreadMessage(f"0.{i}", m) for i, m in enumerate(stored)])
    read = [MESSAGE.validate_python(m) for m in snapshot(restored)]
    assert [m.role for m in read] == [
        "system",
        "developer",
        "user",
        "assistant",
        "tool",
        "assistant",
    ]
    assert read[2].content == "Hi there" and read[3].content is None
    assert isinstance(read[3], AssistantMessage) and read[3].tool_calls is not None
    assert isinstance(read[4], ToolMessage) and read[4].tool_call_id == "c1"
