"""Over HTTP against the web app: a fact saved through the chat wire's `memory_save` says where
it came from in the customer routes' answers (recall, history) and in the ops log."""

from __future__ import annotations

from typing import Any

import asyncpg

from testkit.model_server import ModelServer
from tests.chat.conftest import admin, chat_headers
from tests.memory.helpers import add_op
from tests.web_clients import Client

CUSTOMER = "crm/42"
SAID = "Please remember: I always want an email, never a call."


async def _save(client: Client, server: ModelServer, **headers: str) -> None:
    server.call_tool("memory_save", {"content": SAID})
    server.answer(
        [{**add_op("Prefers email."), "kind": "contact", "evidence": "always want an email"}]
    )
    server.answer_text("Noted.")
    body = {"model": "both", "user": CUSTOMER, "messages": [{"role": "user", "content": SAID}]}
    response = await client.post("/v1/chat/completions", json=body, headers=chat_headers(**headers))
    assert response.status == 200, await response.text()


async def _read(client: Client, path: str, body: dict[str, Any] | None = None) -> Any:
    if body is None:
        response = await client.get(path, headers=admin())
    else:
        response = await client.post(path, json=body, headers=admin())
    assert response.status == 200, await response.text()
    return await response.json()


async def test_a_fact_saved_by_memory_save_shows_its_source(
    client: Client, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    """Channel `chat`, the session the turn kept, the chat key's name, the evidence found."""
    await _save(client, model_server, **{"x-stackbone-session": "thread-1"})
    person = {"userId": CUSTOMER}
    recall = await _read(client, "/api/memory/customers/both/recall", person)
    (fact,) = recall["facts"]
    source = fact["source"]
    assert source["channel"] == "chat"
    assert source["writer"] == {"agent": "both", "job": None, "key": "chat"}
    assert source["evidence"] == "always want an email" and source["kind"] == "contact"
    session = await pool.fetchval(
        "select id::text from stackbone_platform.chat_sessions where session_key = $1",
        "thread-1",
    )
    assert session is not None and source["sessionId"] == session
    assert recall["calls"][0]["source"]["channel"] == "chat"
    history = await _read(client, "/api/memory/customers/both/history", person)
    assert history["versions"][0]["source"] == source
    ops = await _read(client, "/api/memory/ops?agentId=both")
    (event,) = ops["events"]
    assert (event["channel"], event["session_id"]) == ("chat", session)
    assert event["ops"][0]["source"]["channel"] == "chat"


async def test_a_save_without_a_session_names_no_session(
    client: Client, model_server: ModelServer
) -> None:
    await _save(client, model_server)
    recall = await _read(client, "/api/memory/customers/both/recall", {"userId": CUSTOMER})
    assert recall["facts"][0]["source"]["channel"] == "chat"
    assert recall["facts"][0]["source"]["sessionId"] is None
