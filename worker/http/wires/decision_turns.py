"""A parked turn continued once a person decided: `continue_turn`.

The decision's row holds everything the continuation acts on: the agent, the identities and
customer, the settings snapshot the turn started with, what the client sent and the turn so
far. The deciding request contributes only the decision (and the key that must reach the
agent), so a request that names another customer or agent changes nothing. Deciding is one
atomic statement (`chat.decide`): it takes the decision only while it is pending (the loser
of a race gets `DecisionTaken`) and claims the session. The continuation then runs (edit: the
edited arguments) or skips (reject) the held call, runs the step's later calls, and goes on
with the model; the turn is recorded whole, or parks again on a later held call with a new
decision that keeps the first snapshot.

A continuation that fails after the decision was taken keeps the decision recorded (with its
`failure` code) and frees the session; a held tool that ran stays done, and the session keeps
it (`chat.journal`) so the client's next turn records it as a cut turn before its own.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace

import structlog
from aiohttp import web

from chat import (
    Claim,
    Decision,
    DecisionNotFound,
    DecisionTaken,
    Relay,
    Resume,
    ToolObserver,
    TurnResult,
    check_decision,
    decide,
    kept_lease,
    mark_failed,
    read_decision,
    release,
    run_turn,
    thread,
    toolset,
)
from chat.decisions import DecisionRow
from chat.journal import request_digest
from worker.catalog import UnknownAgent
from worker.http.server.context import POOL, agent_of, bounded
from worker.http.server.errors import translate
from worker.http.wires.openai_body import SessionHeader
from worker.http.wires.turns import (
    CHAT_CONFIG,
    CHAT_MODEL,
    TurnFacts,
    definition_of,
    journal_of,
    record_turn,
    turn_input,
)

log = structlog.get_logger(__name__)


async def reachable_decision(request: web.Request, decision_id: str) -> DecisionRow:
    """The decision, if the caller's key reaches its agent; else `DecisionNotFound`."""
    row = await bounded(request, read_decision(request.app[POOL], decision_id))
    try:
        agent_of(request, row.turn.agent_id)
    except UnknownAgent:
        raise DecisionNotFound() from None
    return row


def _facts(row: DecisionRow) -> TurnFacts:
    t = row.turn
    return TurnFacts(t.agent_id, t.identities, t.new, t.options, t.settings, t.client_tools)


async def continue_turn(
    request: web.Request,
    decision_id: str,
    decision: Decision,
    relay: Relay | None = None,
    observer: ToolObserver | None = None,
) -> TurnResult:
    """Decide a pending call and run the rest of its turn with the stored identity, agent
    and settings snapshot; `result.held` when it parked again."""
    pool, config = request.app[POOL], request.app[CHAT_CONFIG]
    row = await reachable_decision(request, decision_id)
    if row.status != "pending":
        raise DecisionTaken()
    definition = definition_of(request, agent_of(request, row.turn.agent_id))
    facts = _facts(row)
    turn = turn_input(request, definition, facts, earlier=[], can_park=True)
    tool = toolset(turn.tools).get(row.pending.tool)
    edited = check_decision(decision, row.pending.allowed, tool, row.pending.tool)
    decided = await bounded(request, decide(pool, row.pending.id, decision, config.lease_seconds))
    claim = decided.claim
    held: Claim | None = claim
    header = SessionHeader(
        "session" if decided.kind == "session" else "conversation", row.turn.session_key
    )
    try:
        if header.kind == "session":
            turn = replace(turn, thread=await bounded(request, thread(pool, claim.session_id)))
        resume = Resume(row.progress, decision, edited)
        digest = request_digest(facts.new, facts.options, facts.client_tools)
        journal = journal_of(request, claim, facts, digest)
        async with kept_lease(pool, claim, config.lease_seconds):
            result = await run_turn(
                request.app[CHAT_MODEL],
                turn,
                config.max_tool_steps,
                relay,
                observer,
                resume=resume,
                journal=journal,
            )
        await record_turn(request, claim, header=header, facts=facts, turn=turn, result=result)
        held = None
    except (Exception, asyncio.CancelledError) as exc:  # cancelled: the client went away
        await _failed(request, row.pending.id, exc)
        raise
    finally:
        if held is not None:
            await release(pool, held)
    return result


async def _failed(request: web.Request, decision_id: str, exc: BaseException) -> None:
    """Note the failure on the taken decision (best effort: its own failure is logged)."""
    code = "client_closed_request"  # the client went away (the request was cancelled)
    if isinstance(exc, Exception) and not isinstance(exc, ConnectionError):
        code = translate(exc).code
    log.warning("chat.continuation_failed", decision_id=decision_id, error_code=code)
    try:
        await bounded(request, mark_failed(request.app[POOL], decision_id, code))
    except Exception as failure:  # the continuation's own error stands
        log.warning("chat.decision_mark_failed", error_type=type(failure).__name__)
