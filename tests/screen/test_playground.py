"""The Playground in headless Chromium against the real app: a message sent over the AG-UI wire
streams in, a held tool is approved inline and its result shown, and a session is continued
from the Sessions view (its run detail shown there first)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import asyncpg
import pytest
from aiohttp.test_utils import TestClient, TestServer

from chat import ChatConfig
from memory.config import MemoryConfig
from testkit.model_server import ModelServer
from tests.rooms.browser import Page
from tests.screen.conftest import Client, api_keys, auth, catalog
from tests.screen.refunds import AGENT, CUSTOMER, REFUNDS, calls
from tests.screen.screen import click, sign_in, text, texts, wait_text
from worker.catalog import Catalog
from worker.http.auth import parse_api_keys
from worker.http.web import create_app

KEY = "web-thread-1"


@pytest.fixture(name="shop")
async def _shop(pool: asyncpg.Pool, model_server: ModelServer) -> AsyncIterator[Client]:
    """The console's app with `refunds` beside its usual agents and a conversation model."""
    agents = Catalog([*catalog(), REFUNDS])
    app = create_app(
        pool=pool,
        catalog=agents,
        api_keys=parse_api_keys(api_keys()),
        memory_config=MemoryConfig(base_url=model_server.url, api_key="test-key"),
        chat=ChatConfig(base_url=model_server.url, api_key="chat-key", model="test-chat"),
    )
    client: Client = TestClient(TestServer(app))
    await client.start_server()
    yield client
    await client.close()


async def openai_turn(client: Client, text_: str) -> dict:
    response = await client.post(
        "/v1/chat/completions",
        json={"model": AGENT, "messages": [{"role": "user", "content": text_}]},
        headers={
            **auth(),
            "x-stackbone-session": KEY,
            "x-stackbone-identities": json.dumps({"customerId": CUSTOMER}),
        },
    )
    assert response.status == 200, await response.text()
    return await response.json()


async def test_a_session_shows_its_run_and_continues_in_the_playground(
    page: Page, shop: Client, model_server: ModelServer
) -> None:
    calls(model_server, "lookup_order", {"order_id": "A-1"}, "call_lookup")
    model_server.answer_text("Order A-1 was delivered.")
    await openai_turn(shop, "Where is order A-1?")
    calls(model_server, "issue_refund", {"order_id": "A-1", "amount": 500}, "call_refund")
    held = await openai_turn(shop, "Refund it, please.")
    assert held["stackbone"]["decision"]["tool"] == "issue_refund"

    await sign_in(page, shop, AGENT)
    await click(page, "tab-sessions")
    await wait_text(page, "status", "1 session(s)")
    await page.evaluate("document.querySelector('#sessions-list .open-session').click()")
    await wait_text(page, "status", "turn(s)")
    turns = await texts(page, "#turns > li")
    print(turns)
    assert "Tool lookup_order · " in turns[0] and " ms" in turns[0]
    assert '"order_id": "A-1"' in turns[0] and "order A-1: delivered" in turns[0]

    await click(page, "session-continue")
    await wait_text(page, "playground-thread", KEY)
    assert f"customerId: {CUSTOMER}" in await text(page, "playground-thread")
    await wait_text(page, "status", "issue_refund is waiting for your decision")
    log = await texts(page, "#playground-log > li")
    print(log)
    assert "Where is order A-1?" in log[0]
