"""Every view of the console at desktop (1280 px) and phone (360 px) widths: drawn with data, no
sideways scrolling of the page at 360 px, and a PNG of each.

`scripts/screens` runs this with `SCREENS_DIR=docs/screens` to refresh the pictures in the docs.
"""

from __future__ import annotations

import asyncio
import base64
import os
from pathlib import Path

from memory.api import Memory
from testkit.model_server import ModelServer
from tests.rooms.browser import Page
from tests.screen.conftest import Client, auth
from tests.screen.refunds import AGENT, park_refund
from tests.screen.screen import click, sign_in, wait_text
from tests.screen.seed import seed_documents, seed_memory, seed_session
from tests.screen.views import VIEWS, prepare

SCREENS_VAR = "SCREENS_DIR"
WIDTHS = {"desktop": 1280, "phone": 360}
MAX_HEIGHT = 2400


async def shoot(page: Page, width: int) -> bytes:
    """A PNG of the whole page (up to MAX_HEIGHT) at `width` CSS pixels."""
    metrics = {"width": width, "deviceScaleFactor": 1, "mobile": width < 600}
    await page.send("Emulation.setDeviceMetricsOverride", height=800, **metrics)
    height = min(await page.evaluate("document.documentElement.scrollHeight"), MAX_HEIGHT)
    await page.send("Emulation.setDeviceMetricsOverride", height=height, **metrics)
    shot = await page.send("Page.captureScreenshot", format="png")
    return base64.b64decode(shot["data"])


async def overflow(page: Page) -> int:
    """How far the page reaches past the viewport sideways (0: nothing to scroll)."""
    value: int = await page.evaluate(
        "document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    return value


async def _widest(page: Page) -> list[str]:
    """The elements reaching past the viewport's right edge (to name them when one does)."""
    found: list[str] = await page.evaluate(
        "[...document.querySelectorAll('body *')].filter(e => !e.closest('.table-wrap'))"
        ".filter(e => e.getBoundingClientRect().right"
        " > document.documentElement.clientWidth + 0.5).map(e => e.tagName + '#' + e.id + '.'"
        " + e.className).slice(0, 8)"
    )
    return found


async def test_every_view_at_desktop_and_phone_widths(
    page: Page, full_client: Client, memory: Memory, model_server: ModelServer, tmp_path: Path
) -> None:
    await seed_memory(memory, model_server)
    await seed_session(full_client, model_server)
    await seed_documents(full_client)
    folder = Path(os.environ.get(SCREENS_VAR) or tmp_path)
    await sign_in(page, full_client, "support")
    for view in VIEWS:
        await prepare(page, view)
        for label, width in WIDTHS.items():
            png = await shoot(page, width)
            assert png[:8] == b"\x89PNG\r\n\x1a\n"
            assert await overflow(page) == 0, (view, label, await _widest(page))
            await asyncio.to_thread((folder / f"{view}-{label}.png").write_bytes, png)


async def test_the_playground_with_a_pending_decision(
    page: Page, shop_client: Client, model_server: ModelServer, tmp_path: Path
) -> None:
    """`playground-decision-*.png`: a held refund waiting inline for Approve / Edit / Reject."""
    await park_refund(shop_client, model_server, "web-thread-1", auth())
    folder = Path(os.environ.get(SCREENS_VAR) or tmp_path)
    await sign_in(page, shop_client, AGENT)
    await click(page, "tab-sessions")
    await wait_text(page, "status", "1 session(s)")
    await page.evaluate("document.querySelector('#sessions-list .open-session').click()")
    await wait_text(page, "status", "turn(s)")
    await click(page, "session-continue")
    await wait_text(page, "status", "is waiting for your decision")
    for label, width in WIDTHS.items():
        png = await shoot(page, width)
        assert await overflow(page) == 0, (label, await _widest(page))
        await asyncio.to_thread((folder / f"playground-decision-{label}.png").write_bytes, png)
