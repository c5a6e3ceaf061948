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

from chat import MAX_LIST, list_decisions, read_decision
from chat.held import Status
from worker.http.server.answers import DecisionItem, Decisions
from worker.session_commands import run_operator_command

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
) -> None:
    """Decisions newest first: the held call (tool, arguments, decisions allowed), its agent
    and session, and what was decided."""

    async def work(pool: asyncpg.Pool) -> dict[str, Any]:
        rows = await list_decisions(pool, None if agent is None else [agent], status, limit)
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
