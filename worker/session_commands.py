"""`caller-memory sessions list|show|delete`: an agent's chat sessions, as the operator routes
(`GET`/`DELETE /api/chat/sessions/...`) show them.

Each prints the route's body (`worker.http.server.answers`) as JSON on stdout. The agent is one
the registry knows (any process that served it registered it; the agents `AGENTS` names are
known before any did), as on the routes; an unknown agent or session is a refusal (exit 2)
naming the field.
Deleting a session never touches memory, and erasing memory never deletes a session.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from typing import Annotated, Any

import asyncpg
import typer

from callmemory.agent_import import DEFAULT_AGENTS, AgentsImportFailed, load_agents
from callmemory.agent_import import VARIABLE as AGENTS_VARIABLE
from chat import (
    MAX_LIST,
    DecisionNotFound,
    SessionNotFound,
    check_session_id,
    delete_session,
    open_session,
)
from chat.paging import Cursor, check_customer, decode_cursor, is_session_id
from chat.sessions import session_page
from memory.config import MemoryConfig
from memory.contract import ErrorInfo, InvalidRequest
from memory.store import registered
from worker.catalog import UnknownAgent
from worker.http.server import answers
from worker.memory_commands import run_with_pool
from worker.refusal import EXIT_USAGE, Refused, refused

sessions_app = typer.Typer(
    help="Operate on an agent's chat sessions (JSON on stdout).", no_args_is_help=True
)
AgentArg = Annotated[str, typer.Argument(help="the agent id (a registered agent)")]
SessionArg = Annotated[str, typer.Argument(help="the session id (from `sessions list`)")]
Work = Callable[[asyncpg.Pool], Awaitable[dict[str, Any]]]


async def known_agent(pool: asyncpg.Pool, name: str) -> None:
    """Refuse an agent neither the registry nor `AGENTS` declares (`agent_not_found`).

    The registry first (any process that served the agent registered it); only an agent it does
    not hold yet loads the definitions `AGENTS` names (default this project's), so a command
    about a registered agent imports no team code.
    """
    if any(row.agent_id == name for row in await registered(pool)):
        return
    if name in _declared_names(os.environ.get(AGENTS_VARIABLE) or DEFAULT_AGENTS):
        return
    raise UnknownAgent()


def _declared_names(path: str) -> frozenset[str]:
    """The names of the agents `path` declares; none when it cannot be loaded."""
    try:
        return frozenset(agent.name for agent in load_agents(path))
    except AgentsImportFailed:
        return frozenset()


def run_operator_command(work: Work, agent: str | None = None) -> None:
    """`work` on a pool, `agent` (when named) checked first; an unknown agent, session or
    decision is one refusal line naming the field (exit 2)."""

    async def with_pool(pool: asyncpg.Pool, _: MemoryConfig) -> dict[str, Any]:
        try:
            if agent is not None:
                await known_agent(pool, agent)
            return await work(pool)
        except UnknownAgent as exc:
            raise Refused(EXIT_USAGE, f"{exc.code}: {exc.message}") from None
        except (SessionNotFound, DecisionNotFound) as exc:
            raise refused(ErrorInfo(exc.code, exc.message, exc.field)) from None

    run_with_pool(with_pool)


CursorOption = Annotated[
    str | None, typer.Option(help="the page after the one that printed this cursor")
]
CustomerOption = Annotated[
    str | None, typer.Option(help="only this customer's (their userId, exactly)")
]


def page_filters(
    cursor: str | None, customer: str | None, check_id: Callable[[str], bool]
) -> tuple[Cursor | None, str | None]:
    """A listing's `--cursor` and `--customer`, or a refusal naming the option (exit 2)."""
    try:
        return decode_cursor(cursor, check_id), check_customer(customer)
    except InvalidRequest as exc:
        raise refused(ErrorInfo(exc.code, exc.message, exc.field)) from None


def tell_next(cursor: str | None) -> None:
    """The next page's option on stderr (stdout stays the route's body)."""
    if cursor is not None:
        typer.echo(f"next page: --cursor {cursor}", err=True)


@sessions_app.command("list")
def list_command(
    agent_id: AgentArg,
    limit: Annotated[int, typer.Option(min=1, max=MAX_LIST, help="sessions to show")] = MAX_LIST,
    cursor: CursorOption = None,
    customer: CustomerOption = None,
) -> None:
    """An agent's sessions, most recently used first, a page at a time (the next page's
    `--cursor` on stderr)."""
    after, only = page_filters(cursor, customer, is_session_id)

    async def work(pool: asyncpg.Pool) -> dict[str, Any]:
        rows, more = await session_page(pool, agent_id, limit, customer=only, after=after)
        tell_next(more)
        return answers.ChatSessions.of(agent_id, rows).wire()

    run_operator_command(work, agent_id)


@sessions_app.command()
def show(agent_id: AgentArg, session_id: SessionArg) -> None:
    """One session with its turns: user message, reply, tokens, duration, and each turn's run
    detail (its tool calls with arguments, results, errors, durations and decisions)."""

    async def work(pool: asyncpg.Pool) -> dict[str, Any]:
        row, turns = await open_session(pool, agent_id, check_session_id(session_id))
        return answers.ChatSession.of(agent_id, row, turns).wire()

    run_operator_command(work, agent_id)


@sessions_app.command()
def delete(agent_id: AgentArg, session_id: SessionArg) -> None:
    """Delete one session and its turns (the person's memory is kept)."""

    async def work(pool: asyncpg.Pool) -> dict[str, Any]:
        ident = check_session_id(session_id)
        await delete_session(pool, agent_id, ident)
        return answers.ChatSessionDeleted(agent_id=agent_id, session_id=ident, deleted=True).wire()

    run_operator_command(work, agent_id)
