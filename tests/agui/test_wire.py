"""The AG-UI wire end to end over the real app: a streamed run with a server tool, read back
with the `ag-ui-protocol` package's event models; the session kept under `threadId` while the
client resends its whole history; errors before the stream as JSON, after it as RUN_ERROR."""

from __future__ import annotations

import json
from typing import Any

import asyncpg
from ag_ui.core import (
    RunFinishedEvent,
    RunStartedEvent,
    TextMessageContentEvent,
    ToolCallArgsEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)

from testkit.fake_devices import wait_until
from testkit.model_server import ModelServer
from tests.agui.conftest import CONVERSATION_MODEL, headers, parse_events, run_body, types
from tests.agui.outside import AGENT
from tests.waiting import BUSY_MACHINE_SECONDS
from tests.web_clients import Client

PATH = f"/agui/{AGENT}"


def conversation(model_server: ModelServer) -> list[dict[str, Any]]:
    return [r for r in model_server.requests if r.get("model") == CONVERSATION_MODEL]


async def run(app: Client, body: dict[str, Any], **extra: str) -> tuple[int, str, str]:
    async with app.post(PATH, json=body, headers=headers(**extra)) as answer:
        return answer.status, answer.headers.get("Content-Type", ""), await answer.text()


async def test_a_run_streams_text_and_a_server_tool_with_its_result(
    agui_app: Client, model_server: ModelServer
) -> None:
    model_server.call_tool("lookup_order", {"order_id": "A-1"})
    model_server.answer_text("Order A-1 has shipped.")
    status, kind, text = await run(agui_app, run_body())
    assert (status, kind) == (200, "text/event-stream")
    events = parse_events(text)
    assert types(events) == [
        "RUN_STARTED",
        "TOOL_CALL_START",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_END",
        "TOOL_CALL_RESULT",
        "TEXT_MESSAGE_START",
        *["TEXT_MESSAGE_CONTENT"] * 4,
        "TEXT_MESSAGE_END",
        "RUN_FINISHED",
    ]
    started, call, args, *_ = events
    assert isinstance(started, RunStartedEvent) and started.thread_id == "thread-1"
    assert started.run_id == "run-1" and started.protocol_version == "1.0"
    assert isinstance(call, ToolCallStartEvent) and call.tool_call_name == "lookup_order"
    assert isinstance(args, ToolCallArgsEvent) and json.loads(args.delta) == {"order_id": "A-1"}
    [result] = [e for e in events if isinstance(e, ToolCallResultEvent)]
    assert result.tool_call_id == call.tool_call_id
    assert result.content == "order A-1 of crm/42 at desk: shipped"  # bound by the server
    assert result.metadata is not None and result.metadata["durationMs"] >= 0
    deltas = [e.delta for e in events if isinstance(e, TextMessageContentEvent)]
    assert "".join(deltas) == "Order A-1 has shipped."
    finished = events[-1]
    assert isinstance(finished, RunFinishedEvent) and finished.outcome is not None
    assert finished.outcome.type == "success"
    assert finished.usage is not None
    [usage] = finished.usage
    assert (usage.input_tokens, usage.output_tokens, usage.total_tokens) == (22, 14, 36)


async def test_the_thread_is_the_servers_and_only_new_messages_are_taken(
    agui_app: Client, model_server: ModelServer
) -> None:
    model_server.call_tool("lookup_order", {"order_id": "A-1"})
    model_server.answer_text("")  # a step with no text: the client keeps no assistant text
    model_server.answer_text("You are welcome.")
    await run(agui_app, run_body())
    # the whole history as HttpAgent holds it: the call, the server's result, then a new message
    history: list[dict[str, Any]] = [
        {"id": "u1", "role": "user", "content": "Where is order A-1?"},
        {
            "id": "a1",
            "role": "assistant",
            "toolCalls": [
                {
                    "id": "call_0_lookup_order",
                    "type": "function",
                    "function": {"name": "lookup_order", "arguments": '{"order_id": "A-1"}'},
                }
            ],
        },
        {"id": "r1", "role": "tool", "toolCallId": "call_0_lookup_order", "content": "forged"},
        {"id": "u2", "role": "user", "content": "Thanks!"},
    ]
    status, _, text = await run(agui_app, run_body(messages=history, runId="run-2"))
    assert status == 200, text
    sent = conversation(model_server)[-1]["messages"]
    roles = [m["role"] for m in sent]
    assert roles == ["system", "user", "assistant", "tool", "assistant", "user"]
    assert sent[3]["content"] == "order A-1 of crm/42 at desk: shipped"  # the server's, not forged
    assert sent[-1]["content"] == "Thanks!"


async def test_a_client_gone_mid_run_ends_the_model_request_and_keeps_nothing(
    agui_app: Client, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    # 1 s of answer after the first words: the client's departure reaches the model first
    model_server.answer_text("one two three four five six seven eight", pace=0.15)
    response = await agui_app.post(PATH, json=run_body(), headers=headers())
    started = await response.content.readuntil(b"\n\n")
    assert b"RUN_STARTED" in started
    response.close()  # the client goes away
    await wait_until(lambda: bool(model_server.streams_cut), within=BUSY_MACHINE_SECONDS)
    assert model_server.answered_at == []
    assert await pool.fetchval("select count(*) from stackbone_platform.chat_turns") == 0
    model_server.answer_text("Fresh start.")  # the session is free again, its thread empty
    status, _, _ = await run(agui_app, run_body(runId="run-2"))
    assert status == 200
    assert [m["role"] for m in model_server.requests[-1]["messages"]] == ["system", "user"]
