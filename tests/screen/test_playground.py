"""The Playground in headless Chromium (smoke while the wire is not merged)."""

from __future__ import annotations

from memory.api import Memory
from testkit.model_server import ModelServer
from tests.rooms.browser import Page
from tests.screen.accessibility import axe_source, violations
from tests.screen.conftest import Client
from tests.screen.screen import click, sign_in, text, texts, wait_text
from tests.screen.seed import SESSION_KEY, seed_session


async def test_smoke(page: Page, full_client: Client, memory: Memory, model_server: ModelServer) -> None:
    await seed_session(full_client, model_server)
    await sign_in(page, full_client, "support")
    await click(page, "tab-playground")
    await wait_text(page, "playground-thread", "new conversation")
    print(await text(page, "playground-thread"))
    assert await violations(page, axe_source()) == []
    await click(page, "tab-sessions")
    await wait_text(page, "status", "session(s)")
    await page.evaluate("document.querySelector('#sessions-list .open-session').click()")
    await wait_text(page, "status", "turn(s)")
    await click(page, "session-continue")
    await wait_text(page, "playground-thread", SESSION_KEY)
    print(await text(page, "playground-thread"))
    print(await texts(page, "#playground-log > li"))
    assert await violations(page, axe_source()) == []
    await page.evaluate("document.getElementById('playground-message').value = 'hello'")
    await click(page, "playground-send")
    print(await page.wait_for("document.getElementById('error').textContent"))
    print(await page.evaluate("document.getElementById('playground-message').value"))
