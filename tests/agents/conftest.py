"""Fixtures for agents declared in a team's own package: the package written outside the
repository and put on the path, and the web app over it (the real app, the test database, the
local model server as conversation, extraction and embeddings model)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import asyncpg
import openai
import pytest

from callmemory.agent_import import load_agents
from chat import ChatConfig
from memory.config import MemoryConfig
from memory.documents import Documents
from testkit.model_server import ModelServer
from tests.agents.outside import AGENTS, COLLECTION, PACKAGE, write_package
from tests.documents.conftest import EMBEDDING_MODEL
from tests.team_package import importable
from tests.web_clients import AppClients, Client, openai_sdk
from worker.catalog import Catalog
from worker.http.server.auth import ApiKey, parse_api_keys
from worker.http.web import create_app

ADMIN_KEY = "admin-secret-0123456789abcdefghi"
SHOP_KEY = "shop-secret-0123456789abcdefghij"
KEYS = [
    {"name": "admin", "key": ADMIN_KEY, "scopes": ["chat", "config:read", "config:write"]},
    {
        "name": "shop-only",
        "key": SHOP_KEY,
        "scopes": ["chat", "config:read", "config:write"],
        "agents": ["shop"],
    },
]
CONVERSATION_MODEL = "conversation-model"
RETURNS = "Returns: unused items can be sent back within thirty days for a full refund."


def api_keys() -> tuple[ApiKey, ...]:
    return parse_api_keys(json.dumps(KEYS))


def bearer(key: str = ADMIN_KEY) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


@pytest.fixture(name="outside")
def _outside(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The team's package on `sys.path` for this test only."""
    with importable(write_package(tmp_path_factory.mktemp("team")), PACKAGE) as root:
        yield root


def memory_config(model_server: ModelServer) -> MemoryConfig:
    return MemoryConfig(
        base_url=model_server.url,
        api_key="test-key",
        embedding_model=EMBEDDING_MODEL,
        embedding_timeout_seconds=5,
    )


async def seed_collection(pool: asyncpg.Pool, model_server: ModelServer) -> None:
    docs = Documents(pool, memory_config(model_server))
    result = await docs.ingest(
        RETURNS.encode(), source="returns.md", content_type="text/markdown", namespace=COLLECTION
    )
    await docs.aclose()
    assert result.data is not None, result.error


@pytest.fixture(name="shop_app")
async def _shop_app(
    outside: Path, pool: asyncpg.Pool, model_server: ModelServer
) -> AsyncIterator[Client]:
    clients = AppClients()
    chat = ChatConfig(
        base_url=model_server.url,
        api_key="conversation-key",
        model=CONVERSATION_MODEL,
        timeout_seconds=5,
        max_tool_steps=5,
    )
    app = create_app(
        pool=pool,
        catalog=Catalog(load_agents(AGENTS)),
        api_keys=api_keys(),
        memory_config=memory_config(model_server),
        chat=chat,
        agents_path=AGENTS,
    )
    yield await clients.serve(app)
    await clients.aclose()


@pytest.fixture(name="shop_openai")
async def _shop_openai(shop_app: Client) -> AsyncIterator[openai.AsyncOpenAI]:
    async with openai_sdk(shop_app, ADMIN_KEY) as sdk:
        yield sdk
