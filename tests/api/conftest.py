"""Fixtures for the HTTP API tests: a test catalog, API keys, and apps over the test database.

Every app is served by aiohttp's real test server over the per-test Postgres database from the
root conftest, so requests go through routing, middleware, auth and SQL exactly as in production.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import asyncpg
import pytest

from callmemory.definition import define_agent
from chat import ChatConfig
from memory.config import MemoryConfig
from memory.settings import CodeDefaults
from testkit.model_server import ModelServer
from tests.livekit_server import OUTBOUND_TRUNK_ID, LiveKitServer
from tests.web_clients import AppClients, Client, MakeClient
from worker.catalog import Catalog, prompt
from worker.http.server.auth import SCOPES, ApiKey, parse_api_keys
from worker.http.server.serving import make_runner, start_site
from worker.http.web import create_app
from worker.voice_settings import VoiceSettings

CODE_INSTRUCTIONS = "Remember the caller's products and promised follow-ups."

# name -> (secret, scopes)
KEYS: dict[str, tuple[str, list[str]]] = {
    "admin": ("admin-secret-0123456789abcdef", list(SCOPES)),
    "config-reader": ("config-reader-secret-0123456789", ["config:read"]),
    "config-writer": ("config-writer-secret-0123456789", ["config:write"]),
    "memory-reader": ("memory-reader-secret-0123456789", ["memory:read"]),
    "memory-eraser": ("memory-eraser-secret-0123456789", ["memory:delete"]),
    "memory-writer": ("memory-writer-secret-0123456789", ["memory:write"]),
    "docs-reader": ("docs-reader-secret-0123456789ab", ["documents:read"]),
    "nobody": ("nobody-secret-0123456789abcdefg", []),
    "sales-only": ("sales-only-secret-0123456789abc", list(SCOPES)),
}
# name -> the only agents the key reaches (a key not named here reaches every agent)
AGENTS: dict[str, list[str]] = {"sales-only": ["sales"]}


def auth(name: str = "admin") -> dict[str, str]:
    """Headers presenting the named test key."""
    return {"Authorization": f"Bearer {KEYS[name][0]}"}


def build_catalog() -> Catalog:
    """`support` declares every memory default; `sales` declares none."""
    return Catalog(
        [
            define_agent(
                name="support",
                instructions=prompt("support"),
                memory=CodeDefaults(
                    read=True,
                    save=False,
                    instructions=CODE_INSTRUCTIONS,
                    identity_key="phoneNumber",
                ),
            ),
            define_agent(name="sales", instructions=prompt("support")),
        ]
    )


@pytest.fixture(name="api_keys")
def _api_keys() -> tuple[ApiKey, ...]:
    entries = [
        {"name": n, "key": k, "scopes": s} | ({"agents": AGENTS[n]} if n in AGENTS else {})
        for n, (k, s) in KEYS.items()
    ]
    return parse_api_keys(json.dumps(entries))


@pytest.fixture(name="make_client")
async def _make_client(
    pool: asyncpg.Pool, api_keys: tuple[ApiKey, ...], memory_config: MemoryConfig
) -> AsyncIterator[MakeClient]:
    """Start an app (a fresh instance each call) over the test database."""
    clients = AppClients()

    async def make(*, catalog: Catalog | None = None, on: asyncpg.Pool | None = None) -> Client:
        app = create_app(
            pool=on or pool,
            catalog=catalog or build_catalog(),
            api_keys=api_keys,
            memory_config=memory_config,
        )
        return await clients.serve(app)

    yield make
    await clients.aclose()


@pytest.fixture(name="client")
async def _client(make_client: MakeClient) -> Client:
    return await make_client()


@pytest.fixture(name="served_port")
async def _served_port(
    pool: asyncpg.Pool, api_keys: tuple[ApiKey, ...], memory_config: MemoryConfig
) -> AsyncIterator[int]:
    """The app behind the same runner and listening site as `python -m worker.http`: its port."""
    app = create_app(
        pool=pool, catalog=build_catalog(), api_keys=api_keys, memory_config=memory_config
    )
    runner = make_runner(app)
    await runner.setup()
    site = await start_site(runner, "127.0.0.1", 0)
    yield site.bound_port
    await runner.cleanup()


async def raw_exchange(port: int, data: bytes, give_up: float = 10.0) -> bytes:
    """Send `data` on a fresh connection and read the answer until the server closes it."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(data)
    received = b""
    try:
        async with asyncio.timeout(give_up):
            while chunk := await reader.read(65536):
                received += chunk
    except (ConnectionResetError, BrokenPipeError):
        pass
    finally:
        writer.close()
    return received


@pytest.fixture(name="livekit")
async def _livekit() -> AsyncIterator[LiveKitServer]:
    server = LiveKitServer()
    await server.start()
    yield server
    await server.stop()


@pytest.fixture(name="whole_app")
async def _whole_app(
    pool: asyncpg.Pool,
    api_keys: tuple[ApiKey, ...],
    memory_config: MemoryConfig,
    livekit: LiveKitServer,
    model_server: ModelServer,
) -> AsyncIterator[Client]:
    """The whole app: voice (the LiveKit stand-in) and the chat wire included, every route live."""
    voice = VoiceSettings(
        url=livekit.url,
        api_key=livekit.api_key,
        api_secret=livekit.api_secret,
        public_url="wss://voice.example.test",
        outbound_trunk_id=OUTBOUND_TRUNK_ID,
    )
    chat = ChatConfig(base_url=model_server.url, api_key="test-key", timeout_seconds=5)
    app = create_app(
        pool=pool,
        catalog=build_catalog(),
        api_keys=api_keys,
        memory_config=memory_config,
        voice=voice,
        chat=chat,
    )
    clients = AppClients()
    yield await clients.serve(app)
    await clients.aclose()
