"""The Playground's pure parts, run in the page as the view runs them: the AG-UI frame decoder
(frames split across chunks, keep-alive comments, a frame that is not JSON) and the
conversation (events folded into items, the history a run sends, the resume entries a
decision makes)."""

from __future__ import annotations

import json
from typing import Any

from tests.rooms.browser import Page
from tests.screen.conftest import Client

RUN: list[dict[str, Any]] = [
    {"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
    {"type": "TEXT_MESSAGE_START", "messageId": "a1", "role": "assistant"},
    {"type": "TEXT_MESSAGE_CONTENT", "messageId": "a1", "delta": "Let me "},
    {"type": "TEXT_MESSAGE_CONTENT", "messageId": "a1", "delta": "check."},
    {"type": "TEXT_MESSAGE_END", "messageId": "a1"},
    {
        "type": "TOOL_CALL_START",
        "toolCallId": "c1",
        "toolCallName": "lookup_order",
        "parentMessageId": "a1",
    },
    {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": '{"order_id":'},
    {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": " 42}"},
    {"type": "TOOL_CALL_END", "toolCallId": "c1"},
    {
        "type": "TOOL_CALL_RESULT",
        "messageId": "m1",
        "toolCallId": "c1",
        "content": "shipped",
        "metadata": {"durationMs": 12.5},
    },
    {
        "type": "TOOL_CALL_START",
        "toolCallId": "c2",
        "toolCallName": "issue_refund",
        "parentMessageId": "a1",
    },
    {"type": "TOOL_CALL_ARGS", "toolCallId": "c2", "delta": '{"order_id": 42, "amount": 10}'},
    {"type": "TOOL_CALL_END", "toolCallId": "c2"},
    {
        "type": "RUN_FINISHED",
        "threadId": "t1",
        "runId": "r1",
        "outcome": {
            "type": "interrupt",
            "interrupts": [
                {
                    "id": "d1",
                    "reason": "tool_call",
                    "toolCallId": "c2",
                    "metadata": {"tool": "issue_refund", "allowed": ["approve"]},
                }
            ],
        },
    },
]


async def decoded(page: Page, chunks: list[str]) -> Any:
    return await page.evaluate(
        "import('/memory/agui.js').then(({EventDecoder}) => { const d = new EventDecoder();"
        f" return {json.dumps(chunks)}.map(c => {{ try {{ return d.push(c); }}"
        " catch (e) { return `${e.name}: ${e.message}`; } }); })"
    )


async def test_the_decoder_joins_frames_across_chunks(page: Page, client: Client) -> None:
    await page.goto(str(client.make_url("/memory/")), ready="window.memoryScreen")
    frame = 'data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"a1","delta":"Hi"}\n\n'
    steps = await decoded(page, [": keep-alive\n\n", frame[:20], frame[20:] + "data: {no", "t\n\n"])
    assert steps[0] == [] and steps[1] == []  # a comment; half a frame
    assert steps[2] == [{"type": "TEXT_MESSAGE_CONTENT", "messageId": "a1", "delta": "Hi"}]
    assert steps[3] == "Error: The agent's stream sent a frame that is not JSON."
    untyped = await decoded(page, ['data: {"delta": "x"}\n\n'])
    assert untyped == ["Error: The agent's stream sent a frame without an event type."]


FOLD = (
    "import('/memory/conversation.js').then(c => {{ let v = c.addUser("
    "c.conversation('support', 't1'), 'u1', 'Refund order 42');"
    " for (const e of {events}) v = c.apply(v, e); {then} }})"
)


async def folded(page: Page, then: str, events: list[dict[str, Any]] = RUN) -> Any:
    return await page.evaluate(FOLD.format(events=json.dumps(events), then=then))


async def test_events_fold_into_the_conversation(page: Page, client: Client) -> None:
    await page.goto(str(client.make_url("/memory/")), ready="window.memoryScreen")
    items = await folded(page, "return v.items;")
    assert [(i["kind"], i["id"]) for i in items] == [
        ("user", "u1"),
        ("assistant", "a1"),
        ("tool", "c1"),
        ("tool", "c2"),
    ]
    assert items[1]["text"] == "Let me check." and items[1]["streaming"] is False
    shown = ("name", "args", "state", "result", "durationMs", "parent")
    assert {k: items[2][k] for k in shown} == {
        "name": "lookup_order",
        "args": '{"order_id": 42}',
        "state": "done",
        "result": "shipped",
        "durationMs": 12.5,
        "parent": "a1",
    }
    assert items[3]["state"] == "held"
    cut = await folded(page, "return v.items.map(i => i.state ?? i.kind);", RUN[:7])
    assert cut == ["user", "assistant", "calling"]  # arguments still streaming
    error = await folded(
        page,
        "return [v.running, v.error];",
        [*RUN[:2], {"type": "RUN_ERROR", "message": "model down"}],
    )
    assert error == [False, "model down"]


async def test_the_history_a_run_sends(page: Page, client: Client) -> None:
    """What @ag-ui/client would send: the user message, the assistant with its tool calls, the
    answered call's result (the held one has none yet)."""
    await page.goto(str(client.make_url("/memory/")), ready="window.memoryScreen")
    messages = await folded(page, "return c.history(v);")
    assert messages == [
        {"id": "u1", "role": "user", "content": "Refund order 42"},
        {
            "id": "a1",
            "role": "assistant",
            "content": "Let me check.",
            "toolCalls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "lookup_order", "arguments": '{"order_id": 42}'},
                },
                {
                    "id": "c2",
                    "type": "function",
                    "function": {
                        "name": "issue_refund",
                        "arguments": '{"order_id": 42, "amount": 10}',
                    },
                },
            ],
        },
        {"id": "m1", "role": "tool", "toolCallId": "c1", "content": "shipped"},
    ]


async def test_decisions_make_resume_entries(page: Page, client: Client) -> None:
    await page.goto(str(client.make_url("/memory/")), ready="window.memoryScreen")
    entries = await folded(
        page,
        (
            "const open = c.undecided(v).map(i => i.id);"
            " const kinds = [{kind: 'approve'},"
            " {kind: 'edit', arguments: {order_id: 42, amount: 5}},"
            " {kind: 'reject', message: 'Not without a receipt'}, {kind: 'reject', message: null}];"
            " return [open, kinds.map(k => { const d = c.decide(v, 'd1', k);"
            " return [c.undecided(d).length, d.items[3].state, c.resumeEntries(d)[0]]; })];"
        ),
    )
    assert entries[0] == ["d1"]
    assert [(n, s) for n, s, _ in entries[1]] == [(0, "decided")] * 4
    assert [e for _, _, e in entries[1]] == [
        {"interruptId": "d1", "status": "resolved", "payload": {"approved": True}},
        {
            "interruptId": "d1",
            "status": "resolved",
            "payload": {"approved": True, "editedArgs": {"order_id": 42, "amount": 5}},
        },
        {
            "interruptId": "d1",
            "status": "resolved",
            "payload": {"approved": False, "message": "Not without a receipt"},
        },
        {"interruptId": "d1", "status": "resolved", "payload": {"approved": False}},
    ]
