"""Each view of the console opened with something in it, as an operator would open it (after
`tests.screen.seed` put customers, a chat session and a collection in place)."""

from __future__ import annotations

from tests.rooms.browser import Page
from tests.screen.screen import click, fill, wait_text
from tests.screen.seed import AWKWARD, SESSION_KEY

VIEWS = (
    "customers",
    "live",
    "overview",
    "sessions",
    "playground",
    "collections",
    "settings",
    "extraction",
)


async def prepare(page: Page, view: str) -> None:
    """Show `view` and wait until it has drawn its data."""
    if view == "playground":  # the seeded session continued: its earlier turns shown
        await prepare(page, "sessions")
        await click(page, "session-continue")
        await wait_text(page, "playground-thread", f"Thread {SESSION_KEY} · continued")
        return
    await click(page, f"tab-{view}")
    if view == "customers":
        await fill(page, "open-user", AWKWARD)
        await click(page, "open")
        await wait_text(page, "status", "fact(s)")
    elif view == "live":
        await page.wait_for("document.querySelectorAll('#live-events li[data-event-id]').length")
    elif view == "sessions":
        await wait_text(page, "status", "session(s)")
        await page.evaluate("document.querySelector('#sessions-list .open-session').click()")
        await wait_text(page, "status", "turn(s)")
    elif view == "collections":
        await wait_text(page, "status", "collection(s)")
        await page.evaluate("document.querySelector('.open-collection').click()")
        await wait_text(page, "status", "Collection help")
        await fill(page, "docs-query", "refund card")
        await click(page, "docs-search")
        await wait_text(page, "status", "hit(s)")
    elif view == "extraction":
        await wait_text(page, "model-default", "Platform default")
    elif view == "overview":
        await wait_text(page, "status", "agent(s)")  # the counts and the registry both drawn
