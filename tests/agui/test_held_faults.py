"""Held tools over AG-UI under the harder cases: two resumes of one interrupt at once (one
continues, the other is 409), two held calls in one step (the continuation ends with a second
interrupt, and its resume finishes the turn), and a pending interrupt resumed through a web
app started after the one that parked it (the decision lives in Postgres, not the process;
`tests/held/test_restart.py` restarts a real `python -m worker.http` process)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import asyncpg
from ag_ui.core import RunFinishedInterruptOutcome, RunFinishedSuccessOutcome, ToolCallResultEvent

from memory.config import MemoryConfig
from testkit.model_server import ModelServer
from tests.agui.conftest import agui_web_app, run_body
from tests.agui.test_held import finished, park, post, resume
from tests.held.scripts import call, calls
from tests.web_clients import AppClients, Client


async def test_two_resumes_at_once_one_continues_the_other_is_409(
    agui_app: Client, model_server: ModelServer
) -> None:
    interrupt, call_id = await park(agui_app, model_server)
    model_server.answer_text("Done.")
    model_server.answer_text("Done again.")  # only if both continued (they must not)
    first, second = await asyncio.gather(
        post(agui_app, resume(interrupt, approved=True)),
        post(agui_app, resume(interrupt, approved=False, message="No.")),
    )
    answers = sorted([first, second], key=lambda answer: answer[0])
    (won, events), (lost, error) = answers
    assert (won, lost) == (200, 409), answers
    assert error["code"] == "decision_taken"
    [tool] = [e for e in events if isinstance(e, ToolCallResultEvent)]
    assert tool.tool_call_id == call_id
    assert isinstance(finished(events).outcome, RunFinishedSuccessOutcome)
    assert len(model_server.replies) == 1  # one continuation asked the model, not two


async def test_two_held_calls_in_one_step_pause_twice(
    agui_app: Client, model_server: ModelServer
) -> None:
    calls(
        model_server,
        call("issue_refund", {"order_id": "A-1", "amount": 10}, "call_one"),
        call("issue_refund", {"order_id": "A-2", "amount": 20}, "call_two"),
    )
    status, events = await post(agui_app, run_body())
    assert status == 200, events
    outcome = finished(events).outcome
    assert isinstance(outcome, RunFinishedInterruptOutcome)
    [first] = outcome.interrupts
    assert first.tool_call_id == "call_one"

    status, events = await post(agui_app, resume(first.id, approved=True))
    assert status == 200, events
    [result] = [e for e in events if isinstance(e, ToolCallResultEvent)]
    assert result.tool_call_id == "call_one" and "refunded 10 on A-1" in str(result.content)
    again = finished(events).outcome
    assert isinstance(again, RunFinishedInterruptOutcome)  # the step's second call parks
    [second] = again.interrupts
    assert second.tool_call_id == "call_two" and second.id != first.id

    model_server.answer_text("Both refunded.")
    body = resume(second.id, approved=True) | {"runId": "run-3"}
    status, events = await post(agui_app, body)
    assert status == 200, events
    [result] = [e for e in events if isinstance(e, ToolCallResultEvent)]
    assert result.tool_call_id == "call_two" and "refunded 20 on A-2" in str(result.content)
    assert isinstance(finished(events).outcome, RunFinishedSuccessOutcome)


async def test_an_interrupt_is_resumed_through_an_app_started_after_it(
    agui_app: Client,
    outside: Path,
    model_server: ModelServer,
    pool: asyncpg.Pool,
    memory_config: MemoryConfig,
) -> None:
    interrupt, call_id = await park(agui_app, model_server)
    clients = AppClients()
    later = agui_web_app(pool, memory_config, model_server)
    try:
        fresh = await clients.serve(later)
        model_server.answer_text("Done.")
        status, events = await post(fresh, resume(interrupt, approved=True))
        assert status == 200, events
        [tool] = [e for e in events if isinstance(e, ToolCallResultEvent)]
        assert tool.tool_call_id == call_id and tool.content == "refunded 10 on A-1 for crm/42"
    finally:
        await clients.aclose()
