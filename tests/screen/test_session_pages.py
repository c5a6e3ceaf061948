"""The Sessions view a page at a time, in headless Chromium against the real app and Postgres:
the first 100 sessions (and calls waiting for a decision), "More sessions" ("More waiting
calls") following the listing's Link header to the rest, and the customer filter on both."""

from __future__ import annotations

import asyncpg

from testkit.model_server import ModelServer
from tests.chat.test_session_pages import seed
from tests.rooms.browser import Page
from tests.screen.accessibility import axe_source, violations
from tests.screen.conftest import Client, auth
from tests.screen.refunds import AGENT, CUSTOMER, park_refund
from tests.screen.screen import click, fill, prop, sign_in, wait_text

ROWS = "document.querySelectorAll('#sessions-list tbody tr').length"
WAITING = (
    "[...document.querySelectorAll('#waiting-list tbody tr')].map(r => r.cells[{}].textContent)"
)
S = "stackbone_platform"
OTHER = "cust-8"
# copies of a parked decision, `n` seconds older than it, of CUSTOMER and OTHER in turn
COPIES = f"""insert into {S}.chat_decisions (id, session_id, session_key, agent_id, tool_call_id,
    tool, arguments, allowed, identities, user_id, settings, progress, created_at)
  select gen_random_uuid(), session_id, 'held-' || n, agent_id, tool_call_id, tool, arguments,
    allowed, jsonb_build_object('customerId', c), c, settings, progress,
    created_at - make_interval(secs => n)
  from {S}.chat_decisions, generate_series($2::int, $3::int) as n,
    lateral (select case when n % 2 = 0 then $4 else $5 end) as who (c)
  where id = $1::uuid"""


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


async def filter_by(page: Page, customer: str) -> None:
    await fill(page, "sessions-customer", customer)
    await page.evaluate("document.getElementById('sessions-filter').requestSubmit()")


async def test_more_waiting_calls_follow_and_the_customer_filter_narrows_them(
    page: Page, shop_client: Client, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    """100 pending decisions (one parked, copies of it, older) are one page; at 105, 100 are
    listed, then the rest; the customer filter keeps one customer's, and nobody's leaves the
    list empty, said so."""
    key = "web-thread-0"
    parked = await park_refund(shop_client, model_server, key, auth())
    await pool.execute(COPIES, parked, 1, 99, CUSTOMER, OTHER)
    await sign_in(page, shop_client, AGENT)
    await click(page, "tab-sessions")
    await wait_text(page, "status", "1 session(s); 100 call(s) waiting for a decision.")
    assert await prop(page, "waiting-more", "hidden") is True  # at the limit: one page

    await pool.execute(COPIES, parked, 100, 104, CUSTOMER, OTHER)
    await click(page, "sessions-refresh")
    await wait_text(page, "status", "1 session(s); 100 call(s) waiting for a decision shown, more")
    assert len(await page.evaluate(WAITING.format(2))) == 100
    assert await prop(page, "waiting-more", "hidden") is False
    assert await violations(page, axe_source()) == [], "a page of waiting calls"

    await click(page, "waiting-more")
    await wait_text(page, "status", "1 session(s); 105 call(s) waiting for a decision.")
    keys = await page.evaluate(WAITING.format(2))
    assert keys == [key, *(f"held-{n}" for n in range(1, 105))]  # newest first, each once
    assert await prop(page, "waiting-more", "hidden") is True
    focused = await page.evaluate("document.activeElement.className")
    assert focused == "open-decision"  # the first row added, for a keyboard user
    assert await page.evaluate("document.activeElement.closest('tr').cells[2].textContent") == (
        "held-100"
    )

    await filter_by(page, OTHER)
    await wait_text(page, "status", "0 session(s); 52 call(s) waiting for a decision.")
    assert set(await page.evaluate(WAITING.format(1))) == {f"customerId: {OTHER}"}
    assert await prop(page, "waiting-more", "hidden") is True
    await filter_by(page, CUSTOMER)
    await wait_text(page, "status", "1 session(s); 53 call(s) waiting for a decision.")
    assert set(await page.evaluate(WAITING.format(1))) == {f"customerId: {CUSTOMER}"}
    assert await violations(page, axe_source()) == [], "one customer's waiting calls"

    await filter_by(page, "nobody")
    await wait_text(page, "status", "0 session(s).")
    empty = await page.evaluate(WAITING.format(0))
    assert empty == ["Nothing of this customer is waiting for a decision."]
