"""Over HTTP against the web app: every read of a person's memory leaves a record (who, when,
channel, route or tool, counts), listed per person, exported with them, erased with them."""

from __future__ import annotations

from typing import Any

from testkit.model_server import ModelServer
from tests.chat.conftest import admin, chat_headers
from tests.chat.test_provenance_wire import CUSTOMER, _save
from tests.web_clients import Client

PERSON = {"userId": CUSTOMER}


async def post(client: Client, path: str, body: dict[str, Any]) -> Any:
    response = await client.post(f"/api/memory/customers/both/{path}", json=body, headers=admin())
    assert response.status == 200, await response.text()
    return await response.json()


async def test_each_read_is_recorded_with_its_reader_channel_route_and_counts(
    client: Client, model_server: ModelServer
) -> None:
    await _save(client, model_server)
    model_server.call_tool("memory_read")
    model_server.answer_text("You prefer email.")
    said = {"model": "both", "user": CUSTOMER, "messages": [{"role": "user", "content": "Hi"}]}
    response = await client.post("/v1/chat/completions", json=said, headers=chat_headers())
    assert response.status == 200, await response.text()
    await post(client, "recall", PERSON)
    await post(client, "history", PERSON)
    await post(client, "search", {"query": "email", **PERSON, "mode": "lexical"})
    await post(client, "search", {"query": "email", "mode": "lexical"})  # every person: no read
    listed = (await post(client, "reads", PERSON))["reads"]
    seen = [(r["reader"], r["channel"], r["route"], r["returned"]) for r in listed]
    assert seen == [
        ("admin", "http", "search", {"hits": 1}),
        ("admin", "http", "history", {"versions": 1}),
        ("admin", "http", "recall", {"facts": 1, "calls": 1}),
        ("chat", "chat", "memory_read", {"facts": 1, "calls": 1}),
    ]
    assert all(r["at"] for r in listed)
    document = await post(client, "export", PERSON)
    assert [r["route"] for r in document["reads"]] == ["memory_read", "recall", "history", "search"]
    exported = (await post(client, "reads", {**PERSON, "limit": 1}))["reads"]
    assert exported[0]["route"] == "export" and exported[0]["returned"]["facts"] == 1
    assert (await post(client, "reads", {"userId": "someone else"}))["reads"] == []


async def test_reads_go_with_the_person(client: Client, model_server: ModelServer) -> None:
    await _save(client, model_server)
    await post(client, "recall", PERSON)
    erased = await client.post(
        "/api/memory/customers/both/delete-all", json=PERSON, headers=admin()
    )
    assert erased.status == 200
    assert (await post(client, "reads", PERSON))["reads"] == []


async def test_the_listing_limit_at_and_past_its_bounds(client: Client) -> None:
    for limit, status in ((1, 200), (500, 200), (0, 400), (501, 400)):
        response = await client.post(
            "/api/memory/customers/both/reads", json={**PERSON, "limit": limit}, headers=admin()
        )
        assert response.status == status, limit
        if status == 400:
            assert (await response.json())["error"]["field"] == "limit"
