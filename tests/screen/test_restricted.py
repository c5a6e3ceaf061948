"""A key that reaches only its agents, on the console: the picker, the overview and the live
feed show only those agents, and another agent's customer is never shown."""

from __future__ import annotations

from memory.api import Memory
from testkit.model_server import ModelServer
from tests.memory.helpers import add_op
from tests.rooms.browser import Page
from tests.screen.conftest import Client
from tests.screen.screen import click, fill, sign_in, text, texts, wait_text
from tests.screen.seed import AWKWARD, seed_memory
from tests.screen.test_views import rows

SALES_CUSTOMER = "+1 555 0199"
SALES_FACT = "Negotiates a fleet discount."


async def test_a_restricted_key_sees_only_its_agent(
    page: Page, client: Client, memory: Memory, model_server: ModelServer
) -> None:
    await seed_memory(memory, model_server)
    for user in (SALES_CUSTOMER, AWKWARD):  # sales keeps memory of its own customer and ours
        model_server.answer([add_op(SALES_FACT)], "A sales call.")
        assert (await memory.add("Something.", "sales", user, {})).error is None

    await sign_in(page, client, "support", key="support-only")
    assert await texts(page, "#agent option") == ["support"]

    await fill(page, "open-user", SALES_CUSTOMER)
    await click(page, "open")
    await wait_text(page, "status", "0 fact(s), 0 call(s)")  # support knows nothing of them
    await fill(page, "search-query", "fleet discount")
    await fill(page, "search-mode", "hybrid")
    await click(page, "search")
    await wait_text(page, "status", "0 result(s)")
    await fill(page, "open-user", AWKWARD)
    await click(page, "open")
    await wait_text(page, "status", "2 fact(s)")
    assert SALES_FACT not in await text(page, "customer")

    await click(page, "tab-overview")
    await wait_text(page, "status", "Counts for 1 agent(s).")
    assert [r[0] for r in await rows(page, "#overview-table tbody tr")] == ["support"]
    await click(page, "tab-live")
    await page.wait_for("document.querySelectorAll('#live-events li[data-event-id]').length === 3")
    assert SALES_FACT not in await text(page, "live-events")
    await click(page, "tab-sessions")
    await wait_text(page, "status", "session(s)")
    assert SALES_FACT not in await page.evaluate("document.body.textContent")
    await click(page, "tab-collections")  # shared by all agents: refused, said in place
    failed = await page.wait_for(
        "document.querySelector('#collections-list td.failed')?.textContent || ''"
    )
    assert failed.startswith("Could not load: "), failed
    await click(page, "tab-extraction")
    assert await page.wait_for("document.getElementById('error').textContent")
