"""A background ingest cut by a killed web process is ingested again by the next one, from the
original it kept (real processes, the local embeddings server, real Postgres)."""

from __future__ import annotations

import asyncio
import json

import aiohttp

from testkit.fake_devices import wait_until
from testkit.model_server import ModelServer
from tests.web.test_web_process import free_port, start_web, wait_healthy

KEY = "k" * 32
TEXT = b"Gift cards are valid for two years from purchase, online or in the shop."


def web_env(database_url: str, server: ModelServer, port: int) -> dict[str, str]:
    keys = [{"name": "ops", "key": KEY, "scopes": ["documents:write"]}]
    return {
        "DATABASE_URL": database_url,
        "PORT": str(port),
        "MEMORY_API_KEYS": json.dumps(keys),
        "STACKBONE_MEMORY_BASE_URL": server.url,
        "STACKBONE_MEMORY_API_KEY": "test-key",
        "STACKBONE_MEMORY_EMBEDDING_MODEL": "test-embedding",
        "DOCUMENTS_RECOVER_AFTER_SECONDS": "0.5",
    }


async def test_an_ingest_cut_by_a_killed_process_is_finished_by_the_next(
    database_url: str, model_server: ModelServer
) -> None:
    port = free_port()
    base, auth = f"http://127.0.0.1:{port}", {"Authorization": f"Bearer {KEY}"}
    model_server.embedding_delay = 5.0  # the first process is killed while it waits
    first = await start_web(web_env(database_url, model_server, port))
    async with aiohttp.ClientSession(headers=auth) as http:
        try:
            await wait_healthy(f"{base}/healthz")
            async with http.post(
                f"{base}/api/documents/collections/default/documents?source=gift.md",
                data=TEXT,
                headers={"Content-Type": "text/plain"},
            ) as response:
                assert response.status == 202, await response.text()
                doc = (await response.json())["id"]
            await wait_until(lambda: bool(model_server.embedding_requests), within=30)
        finally:
            first.kill()  # no drain, no cleanup: the ingest is cut where it stood
            await first.wait()
        model_server.embedding_delay = 0.0
        second = await start_web(web_env(database_url, model_server, port))
        try:
            await wait_healthy(f"{base}/healthz")
            state = await ready_within(http, f"{base}/api/documents/documents/{doc}", 30)
        finally:
            second.terminate()
            await asyncio.wait_for(second.wait(), 20)
    assert state == "ready"
    assert len(model_server.embedding_requests) >= 2  # embedded again by the second process


async def ready_within(http: aiohttp.ClientSession, url: str, seconds: float) -> str:
    state = "pending"
    for _ in range(int(seconds * 10)):
        async with http.get(url) as response:
            assert response.status == 200, await response.text()
            state = str((await response.json())["status"])
        if state != "pending":
            return state
        await asyncio.sleep(0.1)
    return state
