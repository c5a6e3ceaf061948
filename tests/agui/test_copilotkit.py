"""CopilotKit end to end: the example's runtime (`examples/copilotkit/runtime.mjs`, its
`AgentRunner` sending every run to the AG-UI route and restoring threads with the route's
connect run) and its page (`<CopilotKit>`, `<CopilotChat>`, `useInterrupt`) in headless
Chromium, over the real app with the example's agent (`examples/copilotkit/shop.py`), its
database and the scripted model.

A conversation saves and reads the customer's memory, a held refund is approved in the chat;
a second one is left pending, the runtime is killed and started again (it kept nothing), the
page reloads and gets the thread and the pending approval back from the service, and approving
it runs the refund once. Skips without the example's packages (`make test-copilotkit`)."""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator

import aiohttp
import asyncpg
import pytest

from memory.config import MemoryConfig
from testkit.model_server import ModelServer
from tests.agui.conftest import CHAT_KEY, agui_web_app, run_body
from tests.agui.copilotkit_page import (
    approval,
    approve,
    node_binary,
    open_chat,
    reload,
    running,
    say,
    shown,
)
from tests.memory.helpers import add_op
from tests.rooms.browser import (
    SKIP_REASON,
    Chromium,
    Page,
    browser_missing,
    find_chromium,
    open_page_in,
)
from tests.web_clients import AppClients, Client

AGENT = "desk"
SHOP = "examples.copilotkit.shop:agents"
CUSTOMER = "crm/42"


@pytest.fixture(name="shop_app")
async def _shop_app(
    pool: asyncpg.Pool, memory_config: MemoryConfig, model_server: ModelServer
) -> AsyncIterator[Client]:
    """The app serving the example's agent: memory read and saved, `issue_refund` held."""
    clients = AppClients()
    yield await clients.serve(agui_web_app(pool, memory_config, model_server, agents=SHOP))
    await clients.aclose()


@pytest.fixture(name="node")
def _node() -> str:
    """node, the example installed and its page built (else the test skips, or fails)."""
    return node_binary()


@pytest.fixture(name="chat_page")
async def _chat_page(node: str) -> AsyncIterator[Page]:
    binary = find_chromium()
    if binary is None:
        browser_missing(SKIP_REASON)
    assert binary is not None
    browser = Chromium(binary)
    try:
        async with open_page_in(browser) as page:
            yield page
    finally:
        browser.close()


def tool_results(model_server: ModelServer, content: str) -> int:
    """How many tool results with `content` the model was sent, across its requests (each
    request repeats the history: counted once per distinct call id)."""
    calls = {
        m["tool_call_id"]
        for r in model_server.requests
        for m in r["messages"]
        if m["role"] == "tool" and m["content"] == content
    }
    return len(calls)


async def test_a_copilotkit_page_keeps_its_thread_and_approval_across_a_runtime_restart(
    node: str,
    shop_app: Client,
    model_server: ModelServer,
    pool: asyncpg.Pool,
    chat_page: Page,
) -> None:
    model_server.call_tool("memory_save", {"content": "I prefer email."})
    model_server.answer([add_op("Prefers email.")])
    model_server.call_tool("issue_refund", {"order_id": "A-1", "amount": 10})
    model_server.answer_text("Refunded 10 on A-1.")
    model_server.call_tool("memory_read")
    model_server.call_tool("issue_refund", {"order_id": "A-2", "amount": 5})
    model_server.answer_text("Refunded 5 on A-2; we will email you.")
    service = str(shop_app.make_url("")).rstrip("/")

    async with running(node, service, CHAT_KEY, AGENT) as runtime:
        await open_chat(chat_page, f"{runtime.url}?customer={CUSTOMER}&agent={AGENT}")
        await say(chat_page, "Remember that I prefer email. Refund 10 on A-1.")
        await approval(chat_page)
        await approve(chat_page)
        await shown(chat_page, "Refunded 10 on A-1.")
        await say(chat_page, "What do you know about me? Refund 5 on A-2.")
        held = await approval(chat_page)

        await runtime.kill()
        requests_before = len(model_server.requests)
        await runtime.start()
        await reload(chat_page)

        assert await approval(chat_page) == held
        for said in ("Remember that I prefer email. Refund 10 on A-1.", "Refunded 10 on A-1."):
            await shown(chat_page, said)
        await shown(chat_page, "What do you know about me? Refund 5 on A-2.")
        assert len(model_server.requests) == requests_before  # the restore asked no model
        await approve(chat_page)
        await shown(chat_page, "Refunded 5 on A-2; we will email you.")

    read = [
        m["content"]
        for r in model_server.requests
        for m in r["messages"]
        if m["role"] == "tool" and "Prefers email." in m["content"]
    ]
    assert read, "memory_read gave the model the fact memory_save kept"
    assert tool_results(model_server, f"refunded 10 on A-1 for {CUSTOMER}") == 1
    assert tool_results(model_server, f"refunded 5 on A-2 for {CUSTOMER}") == 1
    statuses = await pool.fetch(
        "select tool, status from stackbone_platform.chat_decisions order by created_at"
    )
    assert [tuple(r) for r in statuses] == [("issue_refund", "approved")] * 2


async def test_the_browser_s_headers_never_reach_the_service(
    node: str, shop_app: Client, model_server: ModelServer
) -> None:
    """The example forwards none of the browser's headers: a browser-held `Authorization`
    (a 401 at the service) and the `x-stackbone-*` headers (a 400 on the AG-UI route) stay in
    the runtime, and a forged copy of the runner's own header cannot name another customer on
    a restore (the connect request's `forwardedProps` replace it)."""
    model_server.answer_text("Hello.")
    forged = base64.urlsafe_b64encode(json.dumps({"customerId": "crm/99"}).encode()).decode()
    browser = {
        "Authorization": "Bearer browser-held-key",
        "x-stackbone-session": "s-1",
        "x-stackbone-identities": '{"customerId": "crm/99"}',
        "x-agui-runner-forwarded-props": forged.rstrip("="),
    }
    service = str(shop_app.make_url("")).rstrip("/")
    async with running(node, service, CHAT_KEY, AGENT) as runtime:
        base = f"{runtime.url}api/copilotkit/agent/{AGENT}"
        async with aiohttp.ClientSession(headers=browser) as http:
            async with http.post(f"{base}/run", json=run_body(thread="t-headers")) as answer:
                ran = await answer.text()
            restore = run_body(thread="t-headers", messages=[])
            async with http.post(f"{base}/connect", json=restore) as answer:
                restored = await answer.text()
    assert "RUN_FINISHED" in ran and "Hello." in ran and "RUN_ERROR" not in ran
    assert "MESSAGES_SNAPSHOT" in restored and "Hello." in restored
