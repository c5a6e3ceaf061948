"""Fixtures for the AG-UI wire: the real web app over the test database and the local model
server, the agents of `tests/agui/outside.py`, and the wire's events read back with the
`ag-ui-protocol` package's own models."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import asyncpg
import pytest
from ag_ui.core import BaseEvent, Event
from aiohttp import web
from pydantic import TypeAdapter

from callmemory.agent_import import load_agents
from chat import ChatConfig
from memory.config import MemoryConfig
from testkit.model_server import ModelServer
from tests.agui.outside import AGENTS, PACKAGE, write_package
from tests.team_package import importable
from tests.web_clients import AppClients, Client
from worker.catalog import Catalog
from worker.http.server.auth import parse_api_keys
from worker.http.web import create_app

CHAT_KEY = "chat-secret-0123456789abcdefghij"
DESK_KEY = "desk-secret-0123456789abcdefghij"
KEYS = [
    {"name": "chat", "key": CHAT_KEY, "scopes": ["chat"]},
    {"name": "desk-only", "key": DESK_KEY, "scopes": ["chat"], "agents": ["desk"]},
]
CONVERSATION_MODEL = "conversation-model"
EVENTS: TypeAdapter[Any] = TypeAdapter(Event)


def headers(key: str = CHAT_KEY, **extra: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}", "Content-Type": "application/json", **extra}


def run_body(
    thread: str = "thread-1",
    messages: list[dict[str, Any]] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """A `RunAgentInput` as `HttpAgent` sends it."""
    said = [{"id": "u1", "role": "user", "content": "Where is order A-1?"}]
    return {
        "threadId": thread,
        "runId": extra.pop("runId", "run-1"),
        "protocolVersion": "1.0",
        "state": {},
        "messages": said if messages is None else messages,
        "tools": [],
        "context": [],
        "forwardedProps": {"customerId": "crm/42"},
        **extra,
    }


def parse_events(text: str) -> list[BaseEvent]:
    """The answer's SSE frames as the package's event models (each frame one `data:` line)."""
    frames = [f for f in text.split("\n\n") if f.strip()]
    out = []
    for frame in frames:
        assert frame.startswith("data: "), frame
        out.append(EVENTS.validate_python(json.loads(frame[len("data: ") :])))
    return out


def types(events: list[BaseEvent]) -> list[str]:
    return [e.type.value for e in events]


@pytest.fixture(name="outside")
def _outside(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with importable(write_package(tmp_path_factory.mktemp("agui-team")), PACKAGE) as root:
        yield root


@pytest.fixture(name="agui_app")
async def _agui_app(
    outside: Path, pool: asyncpg.Pool, memory_config: MemoryConfig, model_server: ModelServer
) -> AsyncIterator[Client]:
    clients = AppClients()
    yield await clients.serve(agui_web_app(pool, memory_config, model_server))
    await clients.aclose()


def agui_web_app(
    pool: asyncpg.Pool,
    memory_config: MemoryConfig,
    model_server: ModelServer,
    agents: str = AGENTS,
) -> web.Application:
    """The web app over the test database, the agents of `outside.py` (or of the `agents`
    path) and the model server."""
    chat = ChatConfig(
        base_url=model_server.url,
        api_key="conversation-key",
        model=CONVERSATION_MODEL,
        timeout_seconds=5,
        max_tool_steps=4,
    )
    return create_app(
        pool=pool,
        catalog=Catalog(load_agents(agents)),
        api_keys=parse_api_keys(json.dumps(KEYS)),
        memory_config=memory_config,
        chat=chat,
        agents_path=agents,
    )
