"""Fixtures for the chat wire: the real web app over the test database, the local model server
as both the conversation model and the extraction model, and the official `openai` client."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import anthropic
import asyncpg
import openai
import pytest

from callmemory.definition import AgentDefinition, define_agent
from chat import ChatConfig
from memory.config import MemoryConfig
from memory.settings import CodeDefaults
from testkit.model_server import ModelServer
from tests.web_clients import AppClients, Client, MakeClient, anthropic_sdk, openai_sdk
from worker.catalog import Catalog, prompt
from worker.http.server.auth import parse_api_keys
from worker.http.web import create_app

CHAT_KEY = "chat-secret-0123456789abcdefghij"
ADMIN_KEY = "admin-secret-0123456789abcdefghi"
KEYS = [
    {"name": "chat", "key": CHAT_KEY, "scopes": ["chat"]},
    {"name": "admin", "key": ADMIN_KEY, "scopes": ["memory:read", "memory:delete"]},
]
CONVERSATION_MODEL = "conversation-model"
MAX_STEPS = 2
TOOL_TABLE = [  # agent (its read and save settings) -> the memory tools a turn offers
    ("quiet", []),
    ("reader", ["memory_read"]),
    ("saver", ["memory_save"]),
    ("both", ["memory_read", "memory_save"]),
]


def _agent(name: str, read: bool, save: bool, key: str | None = "customerId") -> AgentDefinition:
    defaults = CodeDefaults(
        read=read, save=save, identity_key=key, instructions="Keep preferences."
    )
    return define_agent(name=name, instructions=prompt("support"), memory=defaults)


def chat_catalog() -> Catalog:
    return Catalog(
        [
            _agent("both", True, True),
            _agent("reader", True, False),
            _agent("saver", False, True),
            _agent("quiet", False, False),
            _agent("phone", True, True, "phoneNumber"),
            _agent("email", True, True, "contact.email"),
            _agent("unbound", True, True, None),
        ]
    )


def chat_headers(**extra: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {CHAT_KEY}", "Content-Type": "application/json", **extra}


def admin() -> dict[str, str]:
    return {"Authorization": f"Bearer {ADMIN_KEY}"}


@pytest.fixture(name="make_client")
async def _make_client(
    pool: asyncpg.Pool, memory_config: MemoryConfig, model_server: ModelServer
) -> AsyncIterator[MakeClient]:
    clients = AppClients()

    async def make(*, timeout_seconds: float = 5.0) -> Client:
        chat = ChatConfig(
            base_url=model_server.url,
            api_key="conversation-key",
            model=CONVERSATION_MODEL,
            timeout_seconds=timeout_seconds,
            max_tool_steps=MAX_STEPS,
        )
        app = create_app(
            pool=pool,
            catalog=chat_catalog(),
            api_keys=parse_api_keys(json.dumps(KEYS)),
            memory_config=memory_config,
            chat=chat,
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
