"""Operators' view of chat sessions: an agent's sessions newest first, one session's turns, and
deleting one.

The chat wires never return a session's id; these operator routes do, as the handle to open or
delete it. Erasing a customer's memory (`delete-all`) does not touch their sessions: a session
is deleted here, on its own, because a thread is not a fact about a person and an operator may
need to remove one conversation (a privacy request, a test) without erasing what memory keeps.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from chat import SessionNotFound, SessionRow, TurnRow, delete_session, list_sessions, open_session
from memory.contract import InvalidRequest
from worker.http import answers
from worker.http.routes_context import POOL, Route, agent_of, respond, timestamp

MAX_LIMIT = 100


def _session(row: SessionRow) -> dict[str, Any]:
    return {
        "sessionId": row.id,
        "kind": row.kind,
        "key": row.key,
        "userId": row.user_id,
        "createdAt": timestamp(row.created_at),
        "updatedAt": timestamp(row.updated_at),
        "turns": row.turns,
    }


def _turn(row: TurnRow) -> dict[str, Any]:
    return {
        "position": row.position,
        "userMessage": row.user_message,
        "reply": row.reply,
        "promptTokens": row.prompt_tokens,
        "completionTokens": row.completion_tokens,
        "durationMs": row.duration_ms,
        "createdAt": timestamp(row.created_at),
    }


def _limit(request: web.Request) -> int:
    raw = request.query.get("limit", str(MAX_LIMIT))
    if not raw.isdigit() or not 1 <= int(raw) <= MAX_LIMIT:
        raise InvalidRequest(f"limit: must be an integer from 1 to {MAX_LIMIT}", field="limit")
    return int(raw)


def _agent_id(request: web.Request) -> str:
    return agent_of(request, request.match_info["agentId"]).name


def _session_id(request: web.Request) -> str:
    value = request.match_info["sessionId"]
    if len(value) != 32 or not all(c in "0123456789abcdef" for c in value):
        raise SessionNotFound()
    return value


async def sessions(request: web.Request) -> web.Response:
    agent = _agent_id(request)
    rows = await list_sessions(request.app[POOL], agent, _limit(request))
    return respond({"agentId": agent, "sessions": [_session(r) for r in rows]})


async def one_session(request: web.Request) -> web.Response:
    agent = _agent_id(request)
    row, turns = await open_session(request.app[POOL], agent, _session_id(request))
    return respond({"agentId": agent, "session": _session(row), "turns": [_turn(t) for t in turns]})


async def remove_session(request: web.Request) -> web.Response:
    agent, ident = _agent_id(request), _session_id(request)
    await delete_session(request.app[POOL], agent, ident)
    return respond({"agentId": agent, "sessionId": ident, "deleted": True})


ROUTES = (
    Route(
        "GET",
        "/api/chat/sessions/{agentId}",
        sessions,
        "memory:read",
        agents="one",
        answers=((200, answers.ChatSessions),),
        query=("limit",),
        summary="An agent's chat sessions, most recently used first",
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
        summary="Delete one chat session (memory erasure does not)",
    ),
)
