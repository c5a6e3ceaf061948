"""`POST /agui/{agentId}`: the AG-UI wire over a registered agent (docs/text.md, "The AG-UI wire").

The body is AG-UI's `RunAgentInput`, read into the wire-neutral turn (`agui_body`): `threadId`
is the session key, the customer comes from `forwardedProps`, and only the messages the
session's thread does not have yet are new. The turn itself (settings, customer, memory tools,
session, bounded tool loop, record) is the one every chat wire shares (`turns`); its text
deltas and tool calls travel as AG-UI events as they happen (`agui_stream`). A client that goes
away mid-run makes the next write fail: the turn keeps nothing and its session is released, as
on the other wires.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Awaitable

import structlog
from ag_ui.core import RunAgentInput
from aiohttp import web

from chat import DecisionNotFound, DecisionPending, SessionRef, TurnRequest, TurnResult
from worker.http.server.context import Route, reaches
from worker.http.server.errors import UNEXPECTED, translate
from worker.http.server.failures import ModelNotFound
from worker.http.server.request_body import client_text, parse_body, read_json
from worker.http.wires.agui_body import AguiRun, as_tool, new_messages, read_run
from worker.http.wires.agui_draft import draft_prompt
from worker.http.wires.agui_restore import outcome, snapshot
from worker.http.wires.agui_resume import decision_of
from worker.http.wires.agui_stream import RunStream
from worker.http.wires.turns import chat_turns, continue_turn, reachable_decision, turn_request

log = structlog.get_logger(__name__)


def run_turn_request(request: web.Request, agent: str, run: AguiRun) -> TurnRequest:
    """The run as a turn: `threadId` is the session, the new messages are those the thread
    does not have yet."""
    return turn_request(
        request,
        agent,
        [],
        run.identities,
        SessionRef("session", run.thread_id),
        reconcile=functools.partial(new_messages, run.candidates),
        client_tools=tuple(as_tool(t) for t in run.tools),
        channel="agui",
    )


async def resumed(request: web.Request, run: AguiRun, stream: RunStream) -> TurnResult:
    """The parked turn the run's `resume` decides, continued with what the decision's row
    stored (agent, identities, settings), whatever this run's route and forwardedProps say."""
    decision_id, decision = decision_of(run.resume)
    row = await reachable_decision(request, decision_id)
    if row.turn.session_key != run.thread_id:
        raise DecisionNotFound()  # not an interrupt of this thread
    return await continue_turn(request, decision_id, decision, stream.relay, stream, channel="agui")


def client_words(body: object) -> object:
    """The body, once the client's own words are checked (no NUL, no lone surrogate). The
    history's assistant messages are exempt: `HttpAgent` resends what the model wrote, which
    may hold either, and the turn uses the server's thread, not the history."""
    if not isinstance(body, dict):
        return body
    client_text({k: v for k, v in body.items() if k != "messages"}, "")
    messages = body.get("messages")
    for index, message in enumerate(messages if isinstance(messages, list) else ()):
        if not (isinstance(message, dict) and message.get("role") == "assistant"):
            client_text(message, f"messages[{index}]")
    return body


async def connect(request: web.Request, agent: str, run: AguiRun, stream: RunStream) -> None:
    """A run with no new message: the thread back, ended as its last run ended
    (`agui_restore`); no model is asked."""
    if not reaches(request, agent):
        raise ModelNotFound()
    restored = await chat_turns(request).restore(agent, run.thread_id, run.identities)
    await stream.restored(snapshot(restored), outcome(restored))


async def taken(request: web.Request, agent: str, run: AguiRun, stream: RunStream) -> TurnResult:
    """The run's new turn; while a decision is pending on the thread, the 409 names `threadId`
    and carries the pending call (id, tool, arguments) to rebuild its approval from."""
    turn = run_turn_request(request, agent, run)
    if run.draft:
        turn = dataclasses.replace(turn, prompt=await draft_prompt(request, agent))
    try:
        return await chat_turns(request).take(turn, stream.relay, stream)
    except DecisionPending as pending:
        try:
            row = await chat_turns(request).read_decision(pending.decision_id)
        except DecisionNotFound:  # decided and its session deleted meanwhile
            raise pending from None
        advice = "answer its interrupt with a resume entry (a run with no new message gives it)"
        raise DecisionPending(row.pending.id, "threadId", row.pending, advice) from None


async def run_agent(request: web.Request) -> web.StreamResponse:
    body = parse_body(RunAgentInput, client_words(await read_json(request, model_text=True)))
    run = read_run(request, body)
    agent = request.match_info["agentId"]
    stream = RunStream(request, run.thread_id, run.run_id)
    if not run.resume and not run.candidates:
        try:
            await connect(request, agent, run, stream)
        except ConnectionError:
            if not stream.started:
                raise
            log.info("agui.run_abandoned", agent_id=agent)
        return stream.response
    work: Awaitable[TurnResult] = (
        resumed(request, run, stream) if run.resume else taken(request, agent, run, stream)
    )
    try:
        result = await work
    except ConnectionError:
        if not stream.started:
            raise
        log.info("agui.run_abandoned", agent_id=agent)  # the client went away
        return stream.response
    except Exception as exc:
        if not stream.started:
            raise  # answered as JSON by the error middleware
        problem = translate(exc)
        if problem is UNEXPECTED:
            log.error("agui.run_failed", error_type=type(exc).__name__)
        await _quietly(stream.fail(problem.code, problem.message))
        return stream.response
    await _quietly(stream.finish(result))
    return stream.response


async def _quietly(writing: object) -> None:
    """The last write, to a client that may have gone meanwhile."""
    try:
        await writing  # type: ignore[misc]
    except ConnectionError:
        log.info("agui.run_abandoned")


ROUTES = (
    Route(
        "POST",
        "/agui/{agentId}",
        run_agent,
        "chat",
        agents="one",
        deadline="own",  # model requests outlast the database deadline; database steps bounded
        body=RunAgentInput,
        download=("text/event-stream",),
        summary="A run of an agent over AG-UI (RunAgentInput in, server-sent AG-UI events out)",
    ),
)
