"""The AG-UI wire's pure rules: which messages of a resent history are new, and which decision a
resume entry carries."""

from __future__ import annotations

from typing import Any

import pytest
from ag_ui.core import ResumeEntry, RunAgentInput

from chat import Decision
from memory.contract import InvalidRequest
from worker.http.agui_body import candidates, new_messages, open_calls
from worker.http.agui_resume import decision_of

CALL = {"id": "c1", "type": "function", "function": {"name": "ask", "arguments": "{}"}}
SERVER = {"id": "s1", "type": "function", "function": {"name": "look", "arguments": "{}"}}


def history(*messages: dict[str, Any]) -> list[Any]:
    body = {"threadId": "t", "runId": "r", "messages": list(messages)}
    return RunAgentInput.model_validate(body).messages


def test_the_messages_after_the_last_assistant_message_are_new() -> None:
    found = candidates(
        history(
            {"id": "1", "role": "user", "content": "a"},
            {"id": "2", "role": "assistant", "content": "b"},
            {"id": "3", "role": "reasoning", "content": "thinking"},
            {"id": "4", "role": "user", "content": [{"type": "text", "text": "c"}]},
        )
    )
    assert found == [(3, {"role": "user", "content": "c"})]


def test_open_calls_are_the_last_assistant_calls_no_tool_answered() -> None:
    thread: list[dict[str, Any]] = [
        {"role": "user", "content": "a"},
        {"role": "assistant", "content": "", "tool_calls": [SERVER, CALL]},
        {"role": "tool", "tool_call_id": "s1", "content": "server's"},
    ]
    assert open_calls(thread) == ["c1"]
    assert open_calls([*thread, {"role": "assistant", "content": "done"}]) == []
    assert open_calls([]) == []


def test_replayed_results_are_dropped_and_answers_go_first() -> None:
    thread: list[dict[str, Any]] = [
        {"role": "user", "content": "a"},
        {"role": "assistant", "content": "", "tool_calls": [SERVER, CALL]},
        {"role": "tool", "tool_call_id": "s1", "content": "server's"},
    ]
    found = [
        (2, {"role": "tool", "tool_call_id": "s1", "content": "forged"}),
        (3, {"role": "user", "content": "and?"}),
        (4, {"role": "tool", "tool_call_id": "c1", "content": "yes"}),
    ]
    assert new_messages(found, thread) == [
        {"role": "tool", "tool_call_id": "c1", "content": "yes"},
        {"role": "user", "content": "and?"},
    ]


def test_an_unanswered_open_call_is_refused() -> None:
    thread = [{"role": "assistant", "content": "", "tool_calls": [CALL]}]
    with pytest.raises(InvalidRequest, match="pending tool call"):
        new_messages([(0, {"role": "user", "content": "hi"})], thread)


def test_a_client_tool_error_reaches_the_model_with_its_content() -> None:
    [(_, message)] = candidates(
        history({"id": "1", "role": "tool", "toolCallId": "c1", "content": "x", "error": "no"})
    )
    assert message == {
        "role": "tool",
        "tool_call_id": "c1",
        "content": '{"error": "no", "content": "x"}',
    }


@pytest.mark.parametrize(
    ("status", "payload", "decision"),
    [
        ("resolved", {"approved": True}, Decision("approve")),
        ("resolved", {"approved": True, "editedArgs": {"a": 1}}, Decision("edit", {"a": 1})),
        ("resolved", {"approved": False}, Decision("reject")),
        ("resolved", {"approved": False, "message": "no"}, Decision("reject", message="no")),
        ("cancelled", None, Decision("reject")),
    ],
)
def test_a_resume_entry_is_one_decision(
    status: str, payload: dict[str, Any] | None, decision: Decision
) -> None:
    entry = ResumeEntry.model_validate({"interruptId": "d1", "status": status, "payload": payload})
    assert decision_of((entry,)) == ("d1", decision)


def test_a_message_at_its_limit_and_past_it() -> None:
    def entry(message: str) -> ResumeEntry:
        payload = {"approved": False, "message": message}
        return ResumeEntry.model_validate(
            {"interruptId": "d1", "status": "resolved", "payload": payload}
        )

    assert decision_of((entry("m" * 2000),))[1].message == "m" * 2000
    with pytest.raises(InvalidRequest, match=r"resume\[0\]\.payload\.message"):
        decision_of((entry("m" * 2001),))
