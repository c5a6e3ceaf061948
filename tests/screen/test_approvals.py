"""Approvals that say whose they are, in headless Chromium against the real app: the decision
card names the customer and quotes their message, "Decide in Playground" opens the stored
thread with its stored customer (read-only), and a refused edit keeps what was typed."""

from __future__ import annotations

import json

from testkit.model_server import ModelServer
from tests.rooms.browser import Page
from tests.screen.accessibility import axe_source, violations
from tests.screen.conftest import Client, auth
from tests.screen.refunds import AGENT, CUSTOMER, calls, park_refund
from tests.screen.screen import click, fill, prop, sign_in, text, texts, wait_text
from tests.screen.test_playground import click_text, send
from tests.screen.test_views import rows

KEY = "web-thread-2"
ACTIVE = "document.activeElement.id"


async def test_decide_in_playground_opens_the_stored_thread_with_its_customer(
    page: Page, shop_client: Client, model_server: ModelServer
) -> None:
    """The previous conversation's customer was someone else: the held call's thread comes up
    with the stored customer, read-only, and its card quotes the message behind the call."""
    await sign_in(page, shop_client, AGENT)
    await click(page, "tab-playground")
    await wait_text(page, "playground-thread", "new conversation")
    await fill(page, "playground-customer", "someone-else")
    await park_refund(shop_client, model_server, KEY, auth())

    await click(page, "tab-sessions")
    await wait_text(page, "status", "1 call(s) waiting for a decision")
    [waiting] = await rows(page, "#waiting-list tbody tr")
    assert waiting[:4] == ["under a minute", f"customerId: {CUSTOMER}", KEY, "issue_refund"]
    await page.evaluate("document.querySelector('#waiting-list .open-decision').click()")
    await wait_text(
        page, "status", f"issue_refund is waiting for your decision, for customerId: {CUSTOMER}"
    )
    thread = await text(page, "playground-thread")
    assert KEY in thread and "a held call to decide" in thread and "new conversation" not in thread
    assert await prop(page, "playground-customer", "value") == CUSTOMER
    assert await prop(page, "playground-customer", "disabled") is True
    [card] = await texts(page, ".decision-whose")
    assert f"customerId: {CUSTOMER}" in card and "Refund it, please." in card
    assert await violations(page, axe_source()) == [], "deciding a stored thread"

    model_server.answer_text("Refunded.")
    await click_text(page, ".decision button", "Approve")
    await wait_text(page, "status", "Reply complete.")
    assert await prop(page, "playground-customer", "value") == CUSTOMER  # still the thread's
    await click(page, "playground-new")
    await wait_text(page, "playground-thread", "new conversation")
    assert await prop(page, "playground-customer", "value") == ""  # not the stored customer
    assert await prop(page, "playground-customer", "disabled") is False


async def test_a_refused_edit_keeps_the_typed_arguments(
    page: Page, shop_client: Client, model_server: ModelServer
) -> None:
    """The tool's own rules refuse the edit on the server: the arguments stay as typed, the
    error is beside them (and names the field), the status line says the decision was refused,
    and the field keeps the focus; a corrected edit then goes through."""
    await sign_in(page, shop_client, AGENT)
    await click(page, "tab-playground")
    await wait_text(page, "playground-thread", "new conversation")
    await fill(page, "playground-customer", CUSTOMER)
    calls(model_server, "issue_refund", {"order_id": "A-1", "amount": 500}, "call_one")
    await send(page, "Refund order A-1.")
    await wait_text(page, "status", "issue_refund is waiting for your decision.")
    [card] = await texts(page, ".decision-whose")
    assert f"customerId: {CUSTOMER}" in card and "Refund order A-1." in card

    await click_text(page, ".decision button", "Edit arguments…")
    field = await page.evaluate(ACTIVE)
    typed = '{"order_id": "A-1"}'  # no amount: the tool's rules refuse it
    await fill(page, field, typed)
    await click_text(page, ".decision button", "Approve with these arguments")
    await wait_text(page, "status", "The decision was refused")
    field = await page.evaluate(ACTIVE)
    assert field.endswith("-arguments")  # the focus stays with the arguments
    assert await prop(page, field, "value") == typed
    beside = await text(page, f"{field}-error")
    assert "amount" in beside and await prop(page, field, "ariaInvalid") == "true"
    assert "amount" in await text(page, "error")
    assert await violations(page, axe_source()) == [], "a refused edit"

    await fill(page, field, json.dumps({"order_id": "A-1", "amount": 250}))
    model_server.answer_text("Refunded 2.50.")
    await click_text(page, ".decision button", "Approve with these arguments")
    await wait_text(page, "status", "Reply complete.")
    log = await texts(page, "#playground-log > li")
    assert " · approved with edited arguments" in log[1] and "refunded 250 on A-1" in log[1]


async def test_how_long_a_call_has_waited(page: Page, shop_client: Client) -> None:
    """The waiting list's age column: minutes, then hours and minutes, then days and hours."""
    await page.goto(str(shop_client.make_url("/memory/")), ready="window.memoryScreen")
    now = 1_800_000_000_000
    minute = 60_000
    waited = [0, 59_999, minute, 59 * minute, 60 * minute, 61 * minute, 1440 * minute]
    shown = await page.evaluate(
        "import('/memory/sessions.js').then(s => "
        f"{json.dumps(waited)}.map(w => s.waitedFor(new Date({now} - w).toISOString(), {now})))"
    )
    assert shown == [
        "under a minute",
        "under a minute",
        "1 min",
        "59 min",
        "1 h",
        "1 h 1 min",
        "1 d",
    ]
