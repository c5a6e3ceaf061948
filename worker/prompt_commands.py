"""`caller-memory prompt show|set|publish|reset`: an agent's conversation instruction (prompt),
as the prompt routes (`/api/memory/agents/{agentId}/prompt`) show and change it.

Each prints the route's body as JSON on stdout. A draft runs only in the console's Playground;
`publish` (or `set --publish`) makes it what new calls and text turns run; `reset` returns to
the instructions in the agent's code. The activity log names the CLI as who changed it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any

import asyncpg
import typer

from callmemory.agent_import import DEFAULT_AGENTS, AgentsImportFailed, load_agents
from callmemory.agent_import import VARIABLE as AGENTS_VARIABLE
from memory.contract import ErrorInfo, InvalidRequest
from memory.settings._prompt import parse_prompt_draft
from memory.store import _prompts as prompts_store
from memory.store._prompts import StoredPrompt
from worker.http.server.answers.prompts import AgentPrompt
from worker.refusal import EXIT_USAGE, Refused, refused
from worker.session_commands import run_operator_command

CLI_ACTOR = "cli"
"""Who the activity log names for a change made with the CLI."""
prompt_app = typer.Typer(
    help="Show, draft, publish or reset an agent's prompt (JSON on stdout).", no_args_is_help=True
)
AgentArg = Annotated[str, typer.Argument(help="the agent id (a registered agent)")]


def code_instructions(name: str) -> str | None:
    """The agent's instructions in the code `AGENTS` names; None when it cannot be loaded."""
    try:
        agents = load_agents(os.environ.get(AGENTS_VARIABLE) or DEFAULT_AGENTS)
    except AgentsImportFailed:
        return None
    return next((agent.instructions for agent in agents if agent.name == name), None)


def _answer(agent_id: str, stored: StoredPrompt) -> dict[str, Any]:
    return AgentPrompt.of(agent_id, stored, code_instructions(agent_id)).wire()


def _draft_text(text: str | None, file: Path | None) -> str:
    """The draft from `--text` or `--file` (exactly one), checked as the route checks it."""
    if (text is None) == (file is None):
        raise Refused(EXIT_USAGE, "give the draft as --text or --file (one of them)")
    if file is not None:
        try:
            text = file.read_text("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise Refused(EXIT_USAGE, f"--file: cannot read it as UTF-8 text ({exc})") from None
    try:
        return parse_prompt_draft({"text": text})
    except InvalidRequest as exc:
        raise refused(ErrorInfo(exc.code, exc.message, exc.field)) from None


@prompt_app.command()
def show(agent_id: AgentArg) -> None:
    """The draft, the published text (and who published it) and the code's instructions."""

    async def work(pool: asyncpg.Pool) -> dict[str, Any]:
        return _answer(agent_id, await prompts_store.load_prompt(pool, agent_id))

    run_operator_command(work, agent_id)


@prompt_app.command("set")
def set_draft(
    agent_id: AgentArg,
    text: Annotated[str | None, typer.Option(help="the draft's text")] = None,
    file: Annotated[Path | None, typer.Option(help="a UTF-8 file holding the draft")] = None,
    publish: Annotated[bool, typer.Option(help="publish it at once")] = False,
) -> None:
    """Save the draft (at most 100,000 characters; blank publishes the code's instructions)."""
    draft = _draft_text(text, file)

    async def work(pool: asyncpg.Pool) -> dict[str, Any]:
        stored = await prompts_store.save_prompt_draft(pool, agent_id, draft, CLI_ACTOR)
        if publish:
            stored = await prompts_store.publish_prompt(pool, agent_id, CLI_ACTOR)
        return _answer(agent_id, stored)

    run_operator_command(work, agent_id)


@prompt_app.command("publish")
def publish_command(agent_id: AgentArg) -> None:
    """Publish the draft: new calls and text turns run it (open calls keep theirs)."""

    async def work(pool: asyncpg.Pool) -> dict[str, Any]:
        return _answer(agent_id, await prompts_store.publish_prompt(pool, agent_id, CLI_ACTOR))

    run_operator_command(work, agent_id)


@prompt_app.command()
def reset(agent_id: AgentArg) -> None:
    """Drop the draft and the published text: the code's instructions run again."""

    async def work(pool: asyncpg.Pool) -> dict[str, Any]:
        return _answer(agent_id, await prompts_store.reset_prompt(pool, agent_id, CLI_ACTOR))

    run_operator_command(work, agent_id)
