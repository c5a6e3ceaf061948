"""The Memory screen in headless Chromium: find a customer, read their memory, erase it."""

from __future__ import annotations

from memory.api import Memory
from testkit.model_server import ModelServer
from tests.rooms.browser import Page
from tests.screen.conftest import KEYS, Client
from tests.screen.screen import (
    click,
    fill,
    prop,
    requested_urls,
    sign_in,
    text,
    texts,
    wait_text,
)
from tests.screen.seed import AWKWARD, UNICODE, seed_memory


async def test_find_and_read_a_customer(
    page: Page, client: Client, memory: Memory, model_server: ModelServer
) -> None:
    """Search by identifier and content, open a customer, read facts, calls and history."""
    await seed_memory(memory, model_server)
    await sign_in(page, client, "support")
    # the key is kept for this tab only, and the field is cleared
    assert await page.evaluate("sessionStorage.length") == 1
    assert await page.evaluate("localStorage.length") == 0
    assert await prop(page, "api-key", "value") == ""

    await fill(page, "search-query", "611 22")
    await fill(page, "search-mode", "identifier")
    await click(page, "search")
    await wait_text(page, "status", "1 result(s)")
    assert await texts(page, "#results button") == [AWKWARD]

    await fill(page, "search-query", "called again")
    await fill(page, "search-mode", "hybrid")
    await click(page, "search")
    await wait_text(page, "status", "result(s)")
    assert await texts(page, "#results button") == [AWKWARD]
    assert "Lexical matches only" in await text(page, "search-note")  # no embedding model here

    await page.evaluate("document.querySelector('#results button').click()")
    await wait_text(page, "status", "2 fact(s), 2 call(s)")
    assert await text(page, "customer-id") == AWKWARD
    facts = await texts(page, "#facts tbody td:first-child")
    assert sorted(facts) == ["Asked not to be called again.", "Has a red Corolla."]
    assert await page.evaluate(
        "[...document.querySelectorAll('#facts tbody td')].every(td => td.textContent !== '')"
    )
    calls = await texts(page, "#calls li")
    assert "scheduled · 242 s" in calls[0] and "Booked a service" in calls[0]  # newest first
    assert "resolved · 83 s" in calls[1]
    history = await texts(page, "#history li")
    assert any("Has a blue Corolla." in h and "until" in h for h in history)
    assert any("Has a red Corolla." in h and "current" in h for h in history)

    await fill(page, "open-user", UNICODE)
    await click(page, "open")
    await wait_text(page, "status", "1 fact(s), 1 call(s)")
    assert await text(page, "customer-id") == UNICODE
    assert await texts(page, "#facts tbody td:first-child") == [
        "Prefiere el teléfono por la tarde."
    ]

    urls = await requested_urls(page)
    assert any(u.endswith("/recall") for u in urls)
    for url in urls:  # neither the ids nor the key ever reach a URL, in any encoding
        for secret in ("611", "Jos", "%C3%B1", KEYS["operator"][0]):
            assert secret not in url, url


async def test_delete_all_asks_for_both_names(
    page: Page, client: Client, memory: Memory, model_server: ModelServer
) -> None:
    await seed_memory(memory, model_server)
    await sign_in(page, client, "support")
    await fill(page, "open-user", AWKWARD)
    await click(page, "open")
    await wait_text(page, "status", "2 fact(s)")

    await click(page, "delete-start")
    assert await prop(page, "delete-confirm", "hidden") is False
    assert await prop(page, "delete-confirm-button", "disabled") is True
    await fill(page, "confirm-user", AWKWARD)
    await fill(page, "confirm-agent", "sales")  # the wrong agent
    assert await prop(page, "delete-confirm-button", "disabled") is True
    await fill(page, "confirm-agent", "support")
    await fill(page, "confirm-user", AWKWARD.replace(" ", ""))  # not exactly as stored
    assert await prop(page, "delete-confirm-button", "disabled") is True
    await click(page, "delete-cancel")
    assert (await memory.recall("support", AWKWARD, 5)).data.facts  # type: ignore[union-attr]

    await click(page, "delete-start")
    await fill(page, "confirm-user", AWKWARD)
    await fill(page, "confirm-agent", "support")
    assert await prop(page, "delete-confirm-button", "disabled") is False
    await click(page, "delete-confirm-button")
    status = await wait_text(page, "status", "Deleted")
    assert AWKWARD in status and "support" in status
    assert await prop(page, "customer", "hidden") is True
    after = (await memory.recall("support", AWKWARD, 5)).data
    assert after is not None and (after.facts, after.calls) == ((), ())
    kept = (await memory.recall("support", UNICODE, 5)).data  # another customer is untouched
    assert kept is not None and len(kept.facts) == 1


async def test_errors_are_shown_not_thrown(page: Page, client: Client) -> None:
    await page.goto(str(client.make_url("/memory/")), ready="window.memoryScreen")
    await fill(page, "api-key", "not-a-key-0123456789abcdefghijkl")
    await click(page, "connect")
    error = await page.wait_for("document.getElementById('error').textContent")
    assert "API key" in error, error
    assert await page.evaluate("document.getElementById('agent').options.length") == 0
    assert await page.evaluate("sessionStorage.length") == 0  # a refused key is not kept
