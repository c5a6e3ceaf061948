"""Held tools' decisions over HTTP (scope `decisions`): list them, read one, decide one.

`POST /api/chat/decisions/{decisionId}` answers with the continued turn
(`worker.http.wires.turns.continue_turn`, `chat.ChatTurns.resume`): the decided call's result,
the reply, and `held` when the turn parked again. A key that does not reach the decision's
agent gets the same 404 as an unknown decision.
"""

from __future__ import annotations

from typing import get_args

from aiohttp import web

from chat.decisions import decision_page
from chat.held import Status
from chat.paging import is_uuid
from memory.contract import InvalidRequest
from worker.http.server.answers import Continued, DecisionItem, Decisions
from worker.http.server.context import POOL, Route, agent_of, respond, restricted_to
from worker.http.server.integers import optional_integer
from worker.http.server.paging import NEXT_LINK, cursor_of, customer_of, with_next
from worker.http.server.request_body import parse_body, read_json
from worker.http.wires.decision_bodies import DecisionBody
from worker.http.wires.decision_stream import stream_continuation
from worker.http.wires.turns import continue_turn, reachable_decision

MAX_LIMIT = 100
STATUSES: tuple[Status, ...] = get_args(Status)


def _status(request: web.Request) -> Status | None:
    value = request.query.get("status")
    if value is None:
        return None
    for status in STATUSES:
        if value == status:
            return status
    raise InvalidRequest(f"status: must be one of {', '.join(STATUSES)}", field="status")


def _agents(request: web.Request) -> list[str] | None:
    agent = request.query.get("agent")
    if agent is not None:
        return [agent_of(request, agent).name]
    return restricted_to(request)


async def decisions(request: web.Request) -> web.Response:
    limit = optional_integer(request.query.get("limit"), "limit", MAX_LIMIT, 1, MAX_LIMIT)
    agents, status, customer = _agents(request), _status(request), customer_of(request)
    after = cursor_of(request, is_uuid)
    rows, cursor = await decision_page(
        request.app[POOL], agents, status, limit, customer=customer, after=after
    )
    return with_next(request, respond(Decisions.of(rows).wire()), cursor)


async def one_decision(request: web.Request) -> web.Response:
    row = await reachable_decision(request, request.match_info["decisionId"])
    return respond(DecisionItem.of_row(row).wire())


async def decide_one(request: web.Request) -> web.StreamResponse:
    body = parse_body(DecisionBody, await read_json(request))
    ident = request.match_info["decisionId"]
    row = await reachable_decision(request, ident)
    decision = body.decided()
    if body.stream:
        return await stream_continuation(request, row, decision)
    result = await continue_turn(request, ident, decision)
    return respond(Continued.of(row, decision, result).wire())


ROUTES = (
    Route(
        "GET",
        "/api/chat/decisions",
        decisions,
        "decisions",
        agents="listing",
        answers=((200, Decisions),),
        query=("agent", "status", "limit", "cursor", "customer"),
        answer_headers=(NEXT_LINK,),
        summary="Held tools' decisions, newest first (pending ones: status=pending)",
        description=(
            "A page of at most `limit` (1..100, default 100) decisions. `customer` keeps the"
            " decisions whose `userId` (the customer the held turn acts for) is that value,"
            ' byte for byte. When more follow, the `Link` header names the next page (rel="next":'
            " this query with `cursor` set); `cursor` is opaque, and a value this listing did"
            " not give is a 400 naming it."
        ),
    ),
    Route(
        "GET",
        "/api/chat/decisions/{decisionId}",
        one_decision,
        "decisions",
        agents="one",
        answers=((200, DecisionItem),),
        summary="One decision: the held call, its status and the outcome once decided",
    ),
    Route(
        "POST",
        "/api/chat/decisions/{decisionId}",
        decide_one,
        "decisions",
        agents="one",
        deadline="own",  # the continuation waits on the model; database steps bounded
        body=DecisionBody,
        answers=((200, Continued),),
        summary="Decide a held call: approve, edit its arguments or reject it; the turn goes on",
    ),
)
