"""Fixtures for held tools: the team's package with held tools on the path, the real web app
over the test database, the local model server as the conversation model, the official
`openai` and `anthropic` clients, and the file the tools write what they ran to."""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import anthropic
import asyncpg
import openai
import pytest

from callmemory.agent_import import load_agents
from chat import ChatConfig
from memory.config import MemoryConfig
from testkit.model_server import ModelServer
from tests.held.outside import AGENTS, PACKAGE, write_package
from tests.team_package import importable
from tests.web_clients import AppClients, Client, MakeClient, anthropic_sdk, openai_sdk
from worker.catalog import Catalog
from worker.http.server.auth import parse_api_keys
from worker.http.web import create_app

CHAT_KEY = "chat-secret-0123456789abcdefghij"
DECIDER_KEY = "decider-secret-0123456789abcdefg"
OTHER_KEY = "other-secret-0123456789abcdefghi"
ADMIN_KEY = "admin-secret-0123456789abcdefghi"
KEYS = [
    {"name": "chat", "key": CHAT_KEY, "scopes": ["chat"]},
    {"name": "decider", "key": DECIDER_KEY, "scopes": ["decisions"]},
    {"name": "other", "key": OTHER_KEY, "scopes": ["decisions", "chat"], "agents": ["other-shop"]},
    {
        "name": "admin",
        "key": ADMIN_KEY,
        "scopes": ["memory:read", "config:write", "chat", "decisions"],
    },
]
CONVERSATION_MODEL = "conversation-model"
MAX_STEPS = 4


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def ran(path: Path) -> list[dict[str, Any]]:
    """What the tools ran with, in order."""
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture(name="ran_file")
def _ran_file(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "ran.jsonl"
    before = os.environ.get("HELD_RAN")
    os.environ["HELD_RAN"] = str(path)
    yield path
    if before is None:
        os.environ.pop("HELD_RAN", None)
    else:
        os.environ["HELD_RAN"] = before


@pytest.fixture(name="team")
def _team(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with importable(write_package(tmp_path_factory.mktemp("heldteam")), PACKAGE) as root:
        yield root


def chat_config(model_server: ModelServer) -> ChatConfig:
    return ChatConfig(
        base_url=model_server.url,
        api_key="conversation-key",
        model=CONVERSATION_MODEL,
        timeout_seconds=5,
        max_tool_steps=MAX_STEPS,
    )


@pytest.fixture(name="make_client")
async def _make_client(
    team: Path, ran_file: Path, pool: asyncpg.Pool, model_server: ModelServer
) -> AsyncIterator[MakeClient]:
    clients = AppClients()

    async def make() -> Client:
        app = create_app(
            pool=pool,
            catalog=Catalog(load_agents(AGENTS)),
            api_keys=parse_api_keys(json.dumps(KEYS)),
            memory_config=MemoryConfig(base_url=model_server.url, api_key="test-key"),
            chat=chat_config(model_server),
            agents_path=AGENTS,
        )
        return await clients.serve(app)

    yield make
    await clients.aclose()


@pytest.fixture(name="client")
async def _client(make_client: MakeClient) -> Client:
    return await make_client()


@pytest.fixture(name="openai_client")
async def _openai_client(client: Client) -> AsyncIterator[openai.AsyncOpenAI]:
    async with openai_sdk(client, CHAT_KEY) as sdk:
        yield sdk


@pytest.fixture(name="anthropic_client")
async def _anthropic_client(client: Client) -> AsyncIterator[anthropic.AsyncAnthropic]:
    async with anthropic_sdk(client, CHAT_KEY) as sdk:
        yield sdk
