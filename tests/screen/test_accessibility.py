"""The console from the keyboard and for assistive technology: axe-core finds no serious or
critical violation on any view (signed out, each view with data, the confirmations open), focus
is visible, and sign-in, navigation and opening things work with Tab and Enter alone."""

from __future__ import annotations

from memory.api import Memory
from testkit.model_server import ModelServer
from tests.rooms.browser import Page
from tests.screen.accessibility import axe_source, violations
from tests.screen.conftest import KEYS, Client
from tests.screen.screen import (
    click,
    focused,
    press,
    prop,
    sign_in,
    tab_to,
    text,
    type_text,
    wait_text,
)
from tests.screen.seed import AWKWARD, seed_documents, seed_memory, seed_session
from tests.screen.views import VIEWS, prepare


async def test_no_serious_violation_on_any_view(
    page: Page, full_client: Client, memory: Memory, model_server: ModelServer
) -> None:
    source = axe_source()
    await seed_memory(memory, model_server)
    await seed_session(full_client, model_server)
    await seed_documents(full_client)
    await page.goto(str(full_client.make_url("/memory/")), ready="window.memoryScreen")
    assert await violations(page, source) == [], "signed out"
    await sign_in(page, full_client, "support")
    for view in VIEWS:
        await prepare(page, view)
        assert await violations(page, source) == [], view
    await click(page, "tab-customers")
    await click(page, "delete-start")  # the confirmation open
    assert await violations(page, source) == [], "delete confirmation"
    await click(page, "tab-settings")
    await click(page, "sign-out")
    assert await violations(page, source) == [], "signed out again"


async def test_everything_by_keyboard_with_visible_focus(
    page: Page, full_client: Client, memory: Memory, model_server: ModelServer
) -> None:
    await seed_memory(memory, model_server)
    await seed_session(full_client, model_server)
    await page.goto(str(full_client.make_url("/memory/")), ready="window.memoryScreen")
    await press(page, "Tab")
    assert await focused(page) == ""  # the skip link comes first
    assert await page.evaluate("document.activeElement.className") == "skip"
    await tab_to(page, "api-key")
    outline = await page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert outline == "solid"  # the focus ring of a field
    await type_text(page, KEYS["operator"][0])
    await press(page, "Enter")  # submits the sign-in form
    await wait_text(page, "status", "agent(s)")
    assert await prop(page, "signin", "hidden") is True

    await tab_to(page, "tab-sessions")
    style = "getComputedStyle(document.activeElement)"
    assert await page.evaluate(f"{style}.outlineStyle + ' ' + {style}.outlineWidth") == (
        "solid 3px"
    )
    await press(page, "Enter")
    assert await focused(page) == "sessions-title"  # focus moves to the view it opened
    assert await prop(page, "sessions", "hidden") is False
    await wait_text(page, "status", "session(s)")
    await press(page, "Tab")  # Refresh
    await press(page, "Tab")  # the customer filter's field (both lists below)
    await press(page, "Tab")  # its Show button
    await press(page, "Tab")  # the calls waiting for a decision: their scroll region (none)
    await press(page, "Tab")  # the sessions table's scroll region
    await press(page, "Tab")  # the first session's Open
    assert await page.evaluate("document.activeElement.textContent") == "Open"
    await press(page, "Enter")
    await wait_text(page, "status", "turn(s)")
    assert "Is my Corolla booked for Friday?" in await text(page, "turns")

    await press(page, "Tab", shift=True)  # back out to the navigation, then Customers
    await tab_to(page, "tab-customers")
    await press(page, "Enter")
    await tab_to(page, "open-user")
    await type_text(page, AWKWARD)
    await press(page, "Enter")  # submits the open form
    await wait_text(page, "status", "2 fact(s)")
    await tab_to(page, "delete-start")
    await press(page, "Enter")
    assert await focused(page) == "confirm-user"  # the confirmation takes the focus
    assert await prop(page, "delete-confirm", "hidden") is False
