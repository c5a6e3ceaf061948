"""`caller-memory decisions list|show`: held tools' decisions, as the decision routes
(`GET /api/chat/decisions[/{decisionId}]`) show them.

Each prints the route's body as JSON on stdout; an unknown agent or decision is a refusal (exit
2) naming the field. Deciding is not here: a decision continues the parked turn with the agent's
own tools and the conversation model, which the web process has (`POST
/api/chat/decisions/{decisionId}`, or the console's Playground).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any

import asyncpg
import typer

from chat import MAX_LIST, DecisionNotFound, list_decisions, read_decision
from chat.held import Status
from memory.config import MemoryConfig
from memory.contract import ErrorInfo
from worker.catalog import UnknownAgent
from worker.http.wires import decision_body
from worker.memory_commands import run_with_pool
from worker.refusal import EXIT_USAGE, Refused, refused
from worker.session_commands import known_agent

decisions_app = typer.Typer(
    help="Read held tools' decisions (JSON on stdout); decide through the API or the console.",
    no_args_is_help=True,
)
Work = Callable[[asyncpg.Pool], Awaitable[dict[str, Any]]]


def _run(work: Work) -> None:
    async def with_pool(pool: asyncpg.Pool, _: MemoryConfig) -> dict[str, Any]:
        try:
            return await work(pool)
        except UnknownAgent as exc:
            raise Refused(EXIT_USAGE, f"{exc.code}: {exc.message}") from None
        except DecisionNotFound as exc:
            raise refused(ErrorInfo(exc.code, exc.message, exc.field)) from None

    run_with_pool(with_pool)


@decisions_app.command("list")
def list_command(
    agent: Annotated[
        str | None, typer.Option(help="only this agent's decisions (a registered agent)")
    ] = None,
    status: Annotated[Status | None, typer.Option(help="only decisions in this status")] = None,
    limit: Annotated[int, typer.Option(min=1, max=MAX_LIST, help="decisions to show")] = MAX_LIST,
) -> None:
    """Decisions newest first: the held call (tool, arguments, decisions allowed), its agent
    and session, and what was decided."""

    async def work(pool: asyncpg.Pool) -> dict[str, Any]:
        if agent is not None:
            await known_agent(pool, agent)
        rows = await list_decisions(pool, None if agent is None else [agent], status, limit)
        return {"decisions": [decision_body(row) for row in rows]}

    _run(work)


@decisions_app.command()
def show(
    decision_id: Annotated[str, typer.Argument(help="the decision id (from `decisions list`)")],
) -> None:
    """One decision."""

    async def work(pool: asyncpg.Pool) -> dict[str, Any]:
        return decision_body(await read_decision(pool, decision_id))

    _run(work)
