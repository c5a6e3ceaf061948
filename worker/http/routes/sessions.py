"""Operators' view of chat sessions: an agent's sessions newest first, one session's turns, and
deleting one.

The chat wires never return a session's id; these operator routes do, as the handle to open or
delete it. Erasing a customer's memory (`delete-all`) erases the agent's chat sessions that name
the customer too (docs/http-api.md); deleting one session here removes only that conversation (a
privacy request, a test) and leaves what memory keeps.
"""

from __future__ import annotations

from aiohttp import web

from chat import MAX_LIST, check_session_id, delete_session, open_session
from chat.paging import is_session_id
from chat.sessions import session_page
from worker.http.server import answers
from worker.http.server.context import POOL, Route, agent_of, respond
from worker.http.server.integers import optional_integer
from worker.http.server.paging import NEXT_LINK, cursor_of, customer_of, with_next

MAX_LIMIT = MAX_LIST


def _limit(request: web.Request) -> int:
    return optional_integer(request.query.get("limit"), "limit", MAX_LIMIT, 1, MAX_LIMIT)


def _agent_id(request: web.Request) -> str:
    return agent_of(request, request.match_info["agentId"]).name


def _session_id(request: web.Request) -> str:
    return check_session_id(request.match_info["sessionId"])


async def sessions(request: web.Request) -> web.Response:
    agent = _agent_id(request)
    limit, customer = _limit(request), customer_of(request)
    after = cursor_of(request, is_session_id)
    rows, cursor = await session_page(
        request.app[POOL], agent, limit, customer=customer, after=after
    )
    return with_next(request, respond(answers.ChatSessions.of(agent, rows).wire()), cursor)


async def one_session(request: web.Request) -> web.Response:
    agent = _agent_id(request)
    row, turns = await open_session(request.app[POOL], agent, _session_id(request))
    return respond(answers.ChatSession.of(agent, row, turns).wire())


async def remove_session(request: web.Request) -> web.Response:
    agent, ident = _agent_id(request), _session_id(request)
    await delete_session(request.app[POOL], agent, ident)
    return respond(
        answers.ChatSessionDeleted(agent_id=agent, session_id=ident, deleted=True).wire()
    )


ROUTES = (
    Route(
        "GET",
        "/api/chat/sessions/{agentId}",
        sessions,
        "memory:read",
        agents="one",
        answers=((200, answers.ChatSessions),),
        query=("limit", "cursor", "customer"),
        answer_headers=(NEXT_LINK,),
        summary="An agent's chat sessions, most recently used first",
        description=(
            "A page of at most `limit` (1..100, default 100) sessions. `customer` keeps the"
            " sessions whose `userId` is that value, byte for byte. When more follow, the"
            ' `Link` header names the next page (rel="next": this query with `cursor` set);'
            " `cursor` is opaque, and a value this listing did not give is a 400 naming it."
        ),
    ),
    Route(
        "GET",
        "/api/chat/sessions/{agentId}/{sessionId}",
        one_session,
        "memory:read",
        agents="one",
        answers=((200, answers.ChatSession),),
        summary="One chat session with its turns",
    ),
    Route(
        "DELETE",
        "/api/chat/sessions/{agentId}/{sessionId}",
        remove_session,
        "memory:delete",
        agents="one",
        answers=((200, answers.ChatSessionDeleted),),
        summary="Delete one chat session (memory is kept)",
    ),
)
