"""aiohttp test clients over apps the tests build: the type the tests annotate with, and one
holder that starts each client and closes them all at teardown (used by the API, chat, rooms
and fault suites, which differ only in how they build the app)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

import anthropic
import openai
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

Client = TestClient[web.Request, web.Application]
MakeClient = Callable[..., Awaitable[Client]]


class AppClients:
    """Clients started over apps, closed together by `aclose` (a fixture's teardown)."""

    def __init__(self) -> None:
        self._clients: list[Client] = []

    async def serve(self, app: web.Application) -> Client:
        client: Client = TestClient(TestServer(app))
        await client.start_server()
        self._clients.append(client)
        return client

    async def aclose(self) -> None:
        for client in self._clients:
            await client.close()


@asynccontextmanager
async def openai_sdk(client: Client, key: str) -> AsyncIterator[openai.AsyncOpenAI]:
    """The official `openai` client pointed at the app's `/v1` (no retries)."""
    sdk = openai.AsyncOpenAI(base_url=str(client.make_url("/v1")), api_key=key, max_retries=0)
    try:
        yield sdk
    finally:
        await sdk.close()


@asynccontextmanager
async def anthropic_sdk(client: Client, key: str) -> AsyncIterator[anthropic.AsyncAnthropic]:
    """The official `anthropic` client pointed at the app (no retries)."""
    base = str(client.make_url("")).rstrip("/")
    sdk = anthropic.AsyncAnthropic(base_url=base, api_key=key, max_retries=0)
    try:
        yield sdk
    finally:
        await sdk.close()
