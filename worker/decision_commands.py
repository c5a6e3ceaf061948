"""`caller-memory decisions list|show`: held tools' decisions, as the decision routes
(`GET /api/chat/decisions[/{decisionId}]`) show them.

Each prints the route's body as JSON on stdout; an unknown agent or decision is a refusal (exit
2) naming the field. Deciding is not here: a decision continues the parked turn with the agent's
own tools and the conversation model, which the web process has (`POST
/api/chat/decisions/{decisionId}`, or the console's Playground).
"""

from __future__ import annotations

from typing import Annotated, Any

import asyncpg
import typer

from chat import MAX_LIST, read_decision
from chat.decisions import decision_page
from chat.held import Status
from chat.paging import is_uuid
from worker.http.server.answers import DecisionItem, Decisions
from worker.session_commands import (
    CursorOption,
    CustomerOption,
    page_filters,
    run_operator_command,
    tell_next,
)

decisions_app = typer.Typer(
    help="Read held tools' decisions (JSON on stdout); decide through the API or the console.",
    no_args_is_help=True,
)


@decisions_app.command("list")
def list_command(
    agent: Annotated[
        str | None, typer.Option(help="only this agent's decisions (a registered agent)")
    ] = None,
    status: Annotated[Status | None, typer.Option(help="only decisions in this status")] = None,
    limit: Annotated[int, typer.Option(min=1, max=MAX_LIST, help="decisions to show")] = MAX_LIST,
    cursor: CursorOption = None,
    customer: CustomerOption = None,
) -> None:
    """Decisions newest first: the held call (tool, arguments, decisions allowed), its agent
    and session, and what was decided; a page at a time (the next page's `--cursor` on
    stderr)."""
    after, only = page_filters(cursor, customer, is_uuid)

    async def work(pool: asyncpg.Pool) -> dict[str, Any]:
        agents = None if agent is None else [agent]
        rows, more = await decision_page(pool, agents, status, limit, customer=only, after=after)
        tell_next(more)
        return Decisions.of(rows).wire()

    run_operator_command(work, agent)


@decisions_app.command()
def show(
    decision_id: Annotated[str, typer.Argument(help="the decision id (from `decisions list`)")],
) -> None:
    """One decision."""

    async def work(pool: asyncpg.Pool) -> dict[str, Any]:
        return DecisionItem.of_row(await read_decision(pool, decision_id)).wire()

    run_operator_command(work)
