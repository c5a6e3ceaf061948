"""`caller-memory prompt show|set|publish|reset` as a separate process against the test
database: the prompt route's body on stdout, the CLI named in the activity log, one line and
exit 2 for a draft past the limit or an unknown agent."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import asyncpg

from memory.settings import CodeDefaults
from memory.settings._prompt import MAX_PROMPT_CHARS
from memory.store import load_call_settings
from tests.cli.test_caller_memory import run
from worker.catalog import prompt

AGENT = "support"  # the shipped catalog's agent
DRAFT = "You answer for Maria's bakery."


async def test_show_set_publish_reset(
    database_url: str, pool: asyncpg.Pool, tmp_path: Path
) -> None:
    env = {"DATABASE_URL": database_url}
    code, out, err = await run("prompt", "show", AGENT, env=env)
    assert code == 0, err
    shown = json.loads(out)
    assert (shown["runs"], shown["code"], shown["draft"]) == ("code", prompt("support"), None)

    code, out, err = await run("prompt", "set", AGENT, "--text", DRAFT, env=env)
    assert code == 0, err
    assert (json.loads(out)["draft"], json.loads(out)["runs"]) == (DRAFT, "code")  # not run
    code, out, err = await run("prompt", "publish", AGENT, env=env)
    published = json.loads(out)
    assert code == 0 and published["published"] == DRAFT and published["publishedBy"] == "cli"
    settings = await load_call_settings(pool, AGENT, CodeDefaults())
    assert settings.prompt == DRAFT

    at_limit = tmp_path / "prompt.txt"
    at_limit.write_text("y" * MAX_PROMPT_CHARS, "utf-8")
    code, out, err = await run(
        "prompt", "set", AGENT, "--file", str(at_limit), "--publish", env=env
    )
    assert code == 0, err
    assert json.loads(out)["published"] == "y" * MAX_PROMPT_CHARS  # at the limit
    code, out, err = await run("prompt", "reset", AGENT, env=env)
    assert code == 0 and json.loads(out)["runs"] == "code"
    actors = await pool.fetch(
        "select actor, action from stackbone_platform.memory_settings_activity"
        " where 'promptPublished' = any(fields) order by id"
    )
    assert [(r["actor"], r["action"]) for r in actors] == [
        ("cli", "publish"),
        ("cli", "publish"),
        ("cli", "reset"),
    ]


async def test_refusals(database_url: str, tmp_path: Path) -> None:
    env = {"DATABASE_URL": database_url}
    past = tmp_path / "long.txt"
    past.write_text("y" * (MAX_PROMPT_CHARS + 1), "utf-8")
    (
        (long_code, _, long_err),
        (both_code, _, both_err),
        (who_code, _, who_err),
    ) = await asyncio.gather(
        run("prompt", "set", AGENT, "--file", str(past), env=env),
        run("prompt", "set", AGENT, env=env),
        run("prompt", "show", "nobody-here", env=env),
    )
    assert (
        long_code == 2 and "at most 100,000 characters" in long_err and "(field text)" in long_err
    )
    assert both_code == 2 and "--text or --file" in both_err
    assert who_code == 2 and "agent_not_found" in who_err
