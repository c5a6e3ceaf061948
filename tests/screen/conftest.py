"""Fixtures for the Memory screen: the production app over the test database, and a browser.

The app is `create_app` served by aiohttp's real test server; Chromium loads the screen from it
and drives it through the public API with a key typed into the page, as an operator would.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator

import asyncpg
import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from callmemory.definition import define_agent
from chat import ChatConfig
from memory.config import MemoryConfig
from memory.settings import CodeDefaults
from testkit.model_server import ModelServer
from tests.rooms.browser import (
    SKIP_REASON,
    Chromium,
    Page,
    browser_missing,
    find_chromium,
    open_page_in,
)
from tests.screen.refunds import REFUNDS
from worker.catalog import Catalog, prompt
from worker.http.server.auth import SCOPES, parse_api_keys
from worker.http.web import create_app

CODE_INSTRUCTIONS = "Keep the caller's products and promised follow-ups."
# name -> (secret, scopes)
KEYS: dict[str, tuple[str, list[str]]] = {
    "operator": ("operator-secret-0123456789abcdef", list(SCOPES)),
    "config": ("config-secret-0123456789abcdefgh", ["config:read", "config:write"]),
    "support-only": ("support-only-secret-0123456789ab", list(SCOPES)),
    "no-decisions": (
        "no-decisions-secret-0123456789ab",
        [s for s in SCOPES if s != "decisions"],
    ),
}
AGENTS_OF_KEY = {"support-only": ["support"]}  # the agents a restricted key reaches


def api_keys() -> str:
    """MEMORY_API_KEYS for the test apps: every key above, restricted ones with their agents."""
    entries = []
    for name, (secret, scopes) in KEYS.items():
        entry: dict[str, object] = {"name": name, "key": secret, "scopes": scopes}
        if name in AGENTS_OF_KEY:
            entry["agents"] = AGENTS_OF_KEY[name]
        entries.append(entry)
    return json.dumps(entries)


CHROMIUM = find_chromium()
EMBEDDING_MODEL = "test-embedding"

Client = TestClient[web.Request, web.Application]


def auth(name: str = "operator") -> dict[str, str]:
    return {"Authorization": f"Bearer {KEYS[name][0]}"}


def catalog() -> Catalog:
    """`support` declares its memory in code; `sales` and `billing` declare nothing."""
    defaults = CodeDefaults(read=True, instructions=CODE_INSTRUCTIONS, identity_key="phoneNumber")
    return Catalog(
        [
            define_agent(name="support", instructions=prompt("support"), memory=defaults),
            define_agent(name="sales", instructions=prompt("support")),
            define_agent(name="billing", instructions=prompt("support")),
        ]
    )


@pytest.fixture(name="client")
async def _client(pool: asyncpg.Pool, memory_config: MemoryConfig) -> AsyncIterator[Client]:
    keys = parse_api_keys(api_keys())
    app = create_app(pool=pool, catalog=catalog(), api_keys=keys, memory_config=memory_config)
    client: Client = TestClient(TestServer(app))
    await client.start_server()
    yield client
    await client.close()


@pytest.fixture(name="full_client")
async def _full_client(pool: asyncpg.Pool, model_server: ModelServer) -> AsyncIterator[Client]:
    """The app with everything the console shows: an embedding model (document collections and
    content search) and a conversation model (the chat wire, so sessions exist)."""
    keys = parse_api_keys(api_keys())
    memory_config = MemoryConfig(
        base_url=model_server.url, api_key="test-key", embedding_model=EMBEDDING_MODEL
    )
    chat = ChatConfig(base_url=model_server.url, api_key="chat-key", model="test-chat")
    app = create_app(
        pool=pool, catalog=catalog(), api_keys=keys, memory_config=memory_config, chat=chat
    )
    client: Client = TestClient(TestServer(app))
    await client.start_server()
    yield client
    await client.close()


@pytest.fixture(name="shop_client")
async def _shop_client(pool: asyncpg.Pool, model_server: ModelServer) -> AsyncIterator[Client]:
    """The app with `refunds` (a held tool, `tests.screen.refunds`) beside the usual agents and
    a conversation model: what the Playground's tests talk to."""
    keys = parse_api_keys(api_keys())
    memory_config = MemoryConfig(base_url=model_server.url, api_key="test-key")
    chat = ChatConfig(base_url=model_server.url, api_key="chat-key", model="test-chat")
    agents = Catalog([*catalog(), REFUNDS])
    app = create_app(
        pool=pool, catalog=agents, api_keys=keys, memory_config=memory_config, chat=chat
    )
    client: Client = TestClient(TestServer(app))
    await client.start_server()
    yield client
    await client.close()


@pytest.fixture(name="browser", scope="session")
def _browser() -> Iterator[Chromium | None]:
    """One Chromium for this test process (None: not installed); each page its own context."""
    browser = None if CHROMIUM is None else Chromium(CHROMIUM)
    yield browser
    if browser is not None:
        browser.close()


@pytest.fixture(name="page")
async def _page(browser: Chromium | None) -> AsyncIterator[Page]:
    if browser is None:
        browser_missing(SKIP_REASON)
    assert browser is not None
    async with open_page_in(browser) as page:
        yield page
