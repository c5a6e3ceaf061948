"""The Overview in headless Chromium: per agent people, facts, calls and failed saves of the
last day with their reasons, as the overview route counts them; Refresh shows a new failure."""

from __future__ import annotations

from datetime import UTC, datetime

import asyncpg

from callmemory.registration import register_agents
from memory.api import Memory
from memory.settings import CodeDefaults
from memory.store import Declared
from testkit.model_server import ModelServer
from tests.memory.helpers import add_op
from tests.rooms.browser import Page
from tests.screen.conftest import Client, auth
from tests.screen.screen import click, sign_in, wait_text
from tests.screen.seed import UNICODE, seed_memory
from tests.screen.test_views import rows
from tests.waiting import eventually


async def failures_counted(client: Client, n: int) -> None:
    """Failed saves are recorded off the failing path: wait until the route counts `n`."""

    async def counted() -> bool:
        body = await (await client.get("/api/memory/overview", headers=auth())).json()
        return bool(body["agents"][0]["failedSavesLastDay"] == n)

    await eventually(counted, f"{n} failed saves counted")


async def test_counts_at_a_glance_per_agent(
    page: Page, client: Client, memory: Memory, model_server: ModelServer
) -> None:
    await seed_memory(memory, model_server)  # calls in November: not in the last day
    model_server.answer([add_op("Vive en Sevilla.")], "Hoy.")
    today = {"started_at": datetime.now(UTC).isoformat()}
    assert (await memory.add("Hola.", "support", UNICODE, today)).error is None
    model_server.fail(500)
    assert (await memory.add("Hola.", "support", UNICODE)).error is not None
    await failures_counted(client, 1)

    await sign_in(page, client, "support")
    await click(page, "tab-overview")
    await wait_text(page, "status", "Counts for 3 agent(s).")
    assert await rows(page, "#overview-table tbody tr") == [
        ["support", "2", "4", "1", "1", "memory_model_failed: 1"],
        ["sales", "0", "0", "0", "0", "—"],
        ["billing", "0", "0", "0", "0", "—"],
    ]

    model_server.answer_text("not json")
    assert (await memory.add("Hola.", "support", UNICODE)).error is not None
    await failures_counted(client, 2)
    await click(page, "overview-refresh")
    await page.wait_for(
        "document.querySelector('#overview-table tbody tr td:nth-child(5)').textContent === '2'"
    )
    (support, *_) = await rows(page, "#overview-table tbody tr")
    assert support[5] in (
        "memory_model_failed: 1, memory_invalid_model_output: 1",
        "memory_invalid_model_output: 1, memory_model_failed: 1",
    )


async def test_every_registered_agent_with_where_it_was_declared(
    page: Page, client: Client, pool: asyncpg.Pool
) -> None:
    """An agent an attached worker declared is shown beside the app's own: where, last seen,
    its tools (a held one with the decisions it allows) and collections, and that this process
    cannot run its text turns."""
    desk = Declared(
        "front-desk",
        CodeDefaults(read=True),
        ("lookup_order", "issue_refund"),
        ("help-center",),
        (("issue_refund", ("approve", "reject")),),
    )
    await register_agents(pool, [desk], "worker desk.py", "worker")

    async def listed() -> bool:  # the app reads the registry again about once a second
        body = await (await client.get("/api/memory/agents", headers=auth())).json()
        return len(body["agents"]) == 4

    await eventually(listed, "the worker's agent listed")
    await sign_in(page, client, "support")
    await click(page, "tab-overview")
    await page.wait_for(
        "document.querySelectorAll('#registry-table tbody tr').length === 4"
        " && !document.querySelector('#registry-table tbody[aria-busy]')"
    )
    found = {r[0]: r for r in await rows(page, "#registry-table tbody tr")}
    assert set(found) == {"support", "sales", "billing", "front-desk"}
    _, where, seen, tools, collections, here = found["front-desk"]
    assert (where, collections) == ("worker desk.py", "help-center")
    assert tools == "lookup_order, issue_refund (held: approve, reject)"
    assert here.startswith("no") and seen.endswith("UTC")
    assert found["support"][1] == "AGENTS=worker.catalog:agents" and found["support"][5] == "yes"
