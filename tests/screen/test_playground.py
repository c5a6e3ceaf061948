"""The Playground in headless Chromium against the real app: a message sent over the AG-UI wire
streams in, a held tool is approved inline and its result shown, and a session is continued
from the Sessions view (its run detail shown there first)."""

from __future__ import annotations

from testkit.model_server import ModelServer
from tests.rooms.browser import Page
from tests.screen.accessibility import axe_source, violations
from tests.screen.conftest import Client, auth
from tests.screen.refunds import AGENT, CUSTOMER, park_refund
from tests.screen.screen import click, sign_in, text, texts, wait_text

KEY = "web-thread-1"


async def test_a_session_shows_its_run_and_continues_in_the_playground(
    page: Page, shop_client: Client, model_server: ModelServer
) -> None:
    await park_refund(shop_client, model_server, KEY, auth())
    await sign_in(page, shop_client, AGENT)
    await click(page, "tab-sessions")
    await wait_text(page, "status", "1 session(s)")
    await page.evaluate("document.querySelector('#sessions-list .open-session').click()")
    await wait_text(page, "status", "turn(s)")
    (turn,) = await texts(page, "#turns > li")  # the parked turn is recorded once decided
    assert "Tool calls (1)" in turn and "Tool lookup_order · " in turn and " ms" in turn
    assert '"order_id": "A-1"' in turn and "order A-1: delivered" in turn

    await click(page, "session-continue")
    await wait_text(page, "playground-thread", KEY)
    assert f"customerId: {CUSTOMER}" in await text(page, "playground-thread")
    await wait_text(page, "status", "issue_refund is waiting for your decision")
    log = await texts(page, "#playground-log > li")
    assert "Where is order A-1?" in log[0] and "order A-1: delivered" in log[1]
    assert "Order A-1 was delivered." in log[2]
    assert "Tool issue_refund · held" in log[3] and '"amount": 500' in log[3]
    assert await violations(page, axe_source()) == [], "a pending decision"
