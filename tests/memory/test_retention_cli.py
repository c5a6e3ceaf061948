"""`caller-memory memory retention`: show an agent's retention, change some kinds, refuse bad
days naming the kind."""

from __future__ import annotations

import asyncio

from tests.memory.test_cli_and_migrations import cli

KEEP = {"calls": None, "sessions": None, "ops": None, "reads": None, "journals": None}


async def test_cli_shows_and_changes_the_retention(database_env: dict[str, str]) -> None:
    shown, changed, refused = await asyncio.gather(
        cli("retention", "sales", env=database_env),
        cli("retention", "support", "--calls", "90", "--ops", "36500", env=database_env),
        cli("retention", "support", "--journals", "36501", env=database_env),
    )
    assert shown == (0, {"agentId": "sales", **KEEP})
    assert changed == (0, {"agentId": "support", **KEEP, "calls": 90, "ops": 36500})
    code, body = refused
    assert code == 2 and body["stderr"].startswith("error: memory_invalid_request: journals: ")
    code, body = await cli("retention", "support", "--calls", "none", env=database_env)
    assert (code, body) == (0, {"agentId": "support", **KEEP, "ops": 36500})
