"""One person's export over HTTP against the running web process: their facts, calls, chat
sessions and reads (a recall by the key named `reader` is a read by `reader`), nothing of
another person of the same agent, and nothing after delete-all."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import aiohttp
import pytest

from testkit.model_server import ModelServer
from tests.memory.helpers import add_op
from tests.web.test_web_process import free_port, start_web, wait_healthy

pytestmark = pytest.mark.processes  # starts processes: not in `make check`

KEY = "e" * 32
PERSON, NEIGHBOUR = "+34 611 22 33 44", "+34 699 00 00 00"
SCOPES = ["memory:read", "memory:write", "memory:delete", "chat"]


def web_env(database_url: str, server: ModelServer, port: int) -> dict[str, str]:
    return {
        "DATABASE_URL": database_url,
        "PORT": str(port),
        "MEMORY_API_KEYS": json.dumps([{"name": "reader", "key": KEY, "scopes": SCOPES}]),
        "STACKBONE_MEMORY_BASE_URL": server.url,
        "STACKBONE_MEMORY_API_KEY": "test-key",
        "CHAT_BASE_URL": server.url,
        "CHAT_API_KEY": "test-key",
        "CHAT_MODEL": "conversation-model",
    }


async def post(http: aiohttp.ClientSession, url: str, body: Any, **headers: str) -> Any:
    async with http.post(url, json=body, headers=headers) as response:
        assert response.status == 200, await response.text()
        return await response.json()


async def seed(http: aiohttp.ClientSession, base: str, server: ModelServer) -> None:
    """Each person: one add over HTTP (a fact, a call) and one chat turn (a session)."""
    for user, fact in ((PERSON, "Owns a zanzibarquokka."), (NEIGHBOUR, "Has a keptaxolotl.")):
        server.answer([add_op(fact)], "A call.")
        body = {"userId": user, "content": "Worth keeping."}
        await post(http, f"{base}/api/memory/customers/support/add", body)
        server.answer_text("Hello.")
        chat = {"model": "support", "messages": [{"role": "user", "content": "Hi"}]}
        await post(
            http,
            f"{base}/v1/chat/completions",
            chat,
            **{
                "x-stackbone-session": f"thread-{user}",
                "x-stackbone-identities": json.dumps({"phoneNumber": user}),
            },
        )


async def test_the_export_over_http_holds_the_person_and_only_them(
    database_url: str, model_server: ModelServer
) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    process = await start_web(web_env(database_url, model_server, port))
    headers = {"Authorization": f"Bearer {KEY}"}
    try:
        await wait_healthy(f"{base}/healthz")
        async with aiohttp.ClientSession(headers=headers) as http:
            await seed(http, base, model_server)
            export = f"{base}/api/memory/customers/support/export"
            await post(http, f"{base}/api/memory/customers/support/recall", {"userId": PERSON})
            document = await post(http, export, {"userId": PERSON})
            reads = [(r["reader"], r["channel"], r["route"]) for r in document["reads"]]
            assert reads == [("reader", "http", "recall")]
            assert [f["content"] for f in document["facts"]] == ["Owns a zanzibarquokka."]
            assert len(document["calls"]) == 1 and len(document["chatSessions"]) == 1
            assert document["chatTurns"] and document["userId"] == PERSON
            text = json.dumps(document)
            assert "keptaxolotl" not in text and NEIGHBOUR not in text
            await post(http, f"{base}/api/memory/customers/support/delete-all", {"userId": PERSON})
            emptied = await post(http, export, {"userId": PERSON})
            assert all(v == [] for v in emptied.values() if isinstance(v, list)), emptied
            kept = await post(http, export, {"userId": NEIGHBOUR})
            assert [f["content"] for f in kept["facts"]] == ["Has a keptaxolotl."]
    finally:
        process.terminate()
        await asyncio.wait_for(process.wait(), 20)
