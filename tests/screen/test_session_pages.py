"""The Sessions view a page at a time, in headless Chromium against the real app and Postgres:
the first 100 sessions, "More sessions" following the listing's Link header to the rest, and
the customer filter."""

from __future__ import annotations

import asyncpg

from tests.chat.test_session_pages import seed
from tests.rooms.browser import Page
from tests.screen.conftest import Client
from tests.screen.screen import click, fill, prop, sign_in, wait_text

ROWS = "document.querySelectorAll('#sessions-list tbody tr').length"


async def test_more_sessions_follow_and_the_customer_filter_keeps_one(
    page: Page, client: Client, pool: asyncpg.Pool
) -> None:
    await seed(pool, 105, agent="support")
    await sign_in(page, client, "support")
    await click(page, "tab-sessions")
    await wait_text(page, "status", "100 session(s) shown, more follow.")
    assert await page.evaluate(ROWS) == 100
    assert await prop(page, "sessions-more", "hidden") is False

    await click(page, "sessions-more")
    await wait_text(page, "status", "105 session(s).")
    assert await page.evaluate(ROWS) == 105
    assert await prop(page, "sessions-more", "hidden") is True
    focused = await page.evaluate("document.activeElement.className")
    assert focused == "open-session"  # the first row added, for a keyboard user

    await fill(page, "sessions-customer", "crm/2")
    await page.evaluate("document.getElementById('sessions-filter').requestSubmit()")
    await wait_text(page, "status", "52 session(s).")
    customers = await page.evaluate(
        "[...document.querySelectorAll('#sessions-list tbody tr')].map(r => r.cells[3].textContent)"
    )
    assert set(customers) == {"crm/2"}

    await fill(page, "sessions-customer", "nobody")
    await page.evaluate("document.getElementById('sessions-filter').requestSubmit()")
    await wait_text(page, "status", "0 session(s).")
    empty = await page.evaluate("document.querySelector('#sessions-list tbody td').textContent")
    assert empty == "No chat sessions of this customer."
