"""`caller-memory sessions list` and `decisions list` a page at a time: the route's body on
stdout, the next page's `--cursor` on stderr, `--customer` keeping one customer's; a cursor
the listing did not give is one line naming the option and exit 2."""

from __future__ import annotations

import json
import re

import asyncpg

from chat.paging import MAX_CUSTOMER_CHARS
from memory.settings import CodeDefaults
from memory.store import Declared, register
from tests.cli.test_caller_memory import run
from tests.cli.test_decision_commands import AGENT as HELD_AGENT
from tests.cli.test_decision_commands import parked
from tests.cli.test_session_commands import AGENT, kept_session

NEXT = re.compile(r"^next page: --cursor (\S+)$", re.MULTILINE)


def next_cursor(err: str) -> str | None:
    found = NEXT.search(err)
    return None if found is None else found[1]


async def test_sessions_page_by_cursor_and_customer(database_url: str, pool: asyncpg.Pool) -> None:
    env = {"DATABASE_URL": database_url}
    made = [await kept_session(pool, f"k{n}", f"crm/{n % 2}", "Hi.") for n in range(3)]
    seen, cursor = [], None
    while True:
        options = ["--limit", "1"] + ([] if cursor is None else ["--cursor", cursor])
        code, out, err = await run("sessions", "list", AGENT, *options, env=env)
        assert code == 0, err
        seen += [s["sessionId"] for s in json.loads(out)["sessions"]]
        if (cursor := next_cursor(err)) is None:
            break
    assert seen == made[::-1]  # newest first, each once
    code, out, err = await run("sessions", "list", AGENT, "--customer", "crm/1", env=env)
    assert code == 0 and next_cursor(err) is None
    assert [s["sessionId"] for s in json.loads(out)["sessions"]] == [made[1]]

    code, out, err = await run("sessions", "list", AGENT, "--cursor", "bogus", env=env)
    assert (code, out) == (2, "") and "(field cursor)" in err and len(err.splitlines()) == 1
    too_long = "c" * (MAX_CUSTOMER_CHARS + 1)
    code, out, err = await run("sessions", "list", AGENT, "--customer", too_long, env=env)
    assert (code, out) == (2, "") and "(field customer)" in err


async def test_decisions_page_by_cursor(database_url: str, pool: asyncpg.Pool) -> None:
    env = {"DATABASE_URL": database_url}
    declared = Declared(HELD_AGENT, CodeDefaults(), ("issue_refund",), ())
    await register(pool, [declared], "t", "worker")
    older = await parked(pool, "thread-1", "call_1")
    newer = await parked(pool, "thread-2", "call_2")
    code, out, err = await run("decisions", "list", "--limit", "1", env=env)
    assert code == 0, err
    assert [d["id"] for d in json.loads(out)["decisions"]] == [newer]
    cursor = next_cursor(err)
    assert cursor is not None
    code, out, err = await run("decisions", "list", "--limit", "1", "--cursor", cursor, env=env)
    assert [d["id"] for d in json.loads(out)["decisions"]] == [older]
    assert next_cursor(err) is None
    code, out, err = await run("decisions", "list", "--customer", "cust-2", env=env)
    assert code == 0 and json.loads(out) == {"decisions": []}
    code, out, err = await run("decisions", "list", "--cursor", "AAAA", env=env)
    assert (code, out) == (2, "") and "(field cursor)" in err
