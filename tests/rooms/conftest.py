"""Fixtures for voice-call tests: the LiveKit stand-in and the web app wired to it.

The app is the production `create_app` over the per-test Postgres database, with voice settings
that point livekit-api's client at `tests.livekit_server.LiveKitServer`.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable

import asyncpg
import pytest
from aiohttp import web
from livekit import api

from callmemory.definition import define_agent
from memory.config import MemoryConfig
from memory.settings import CodeDefaults
from tests.livekit_server import OUTBOUND_TRUNK_ID, LiveKitServer
from tests.web_clients import AppClients, Client, MakeClient
from worker.catalog import Catalog, prompt
from worker.http.server.auth import parse_api_keys
from worker.http.web import create_app
from worker.voice_settings import VoiceSettings

PUBLIC_URL = "wss://voice.example.test"
# name -> (secret, scopes)
KEYS: dict[str, tuple[str, list[str]]] = {
    "operator": ("operator-secret-0123456789abcdef", ["voice:rooms", "voice:calls"]),
    "rooms-only": ("rooms-only-secret-0123456789abcd", ["voice:rooms"]),
    "config": ("config-secret-0123456789abcdefgh", ["config:write", "memory:read"]),
}


def auth(name: str = "operator") -> dict[str, str]:
    return {"Authorization": f"Bearer {KEYS[name][0]}"}


def catalog() -> Catalog:
    """`support` binds memory to phoneNumber, `crm` to contact.email, `plain` to nothing."""
    return Catalog(
        [
            define_agent(
                name="support",
                instructions=prompt("support"),
                memory=CodeDefaults(read=True, identity_key="phoneNumber"),
            ),
            define_agent(
                name="crm",
                instructions=prompt("support"),
                memory=CodeDefaults(read=True, identity_key="contact.email"),
            ),
            define_agent(name="plain", instructions=prompt("support")),
        ]
    )


@pytest.fixture(name="livekit")
async def _livekit() -> AsyncIterator[LiveKitServer]:
    server = LiveKitServer()
    await server.start()
    yield server
    await server.stop()


@pytest.fixture(name="voice")
def _voice(livekit: LiveKitServer) -> VoiceSettings:
    return VoiceSettings(
        url=livekit.url,
        api_key=livekit.api_key,
        api_secret=livekit.api_secret,
        public_url=PUBLIC_URL,
        outbound_trunk_id=OUTBOUND_TRUNK_ID,
    )


@pytest.fixture(name="make_client")
async def _make_client(
    pool: asyncpg.Pool, memory_config: MemoryConfig, voice: VoiceSettings
) -> AsyncIterator[MakeClient]:
    clients = AppClients()
    keys = parse_api_keys(
        json.dumps([{"name": n, "key": k, "scopes": s} for n, (k, s) in KEYS.items()])
    )

    async def make(
        *,
        settings: VoiceSettings | None = voice,
        app_hook: Callable[[web.Application], None] | None = None,
    ) -> Client:
        app = create_app(
            pool=pool, catalog=catalog(), api_keys=keys, memory_config=memory_config, voice=settings
        )
        if app_hook is not None:
            app_hook(app)
        return await clients.serve(app)

    yield make
    await clients.aclose()


@pytest.fixture(name="client")
async def _client(make_client: MakeClient) -> Client:
    return await make_client()


@pytest.fixture(name="lk")
async def _lk(livekit: LiveKitServer) -> AsyncIterator[api.LiveKitAPI]:
    """livekit-api's own client, pointed at the stand-in (what a job's `ctx.api` is)."""
    client = api.LiveKitAPI(livekit.url, livekit.api_key, livekit.api_secret)
    yield client
    await client.aclose()
