"""A customer's memory over HTTP: read facts and calls, erase them, errors as statuses."""

from __future__ import annotations

from typing import Any

import asyncpg
import pytest

from callmemory.definition import define_agent
from memory.api import Memory
from testkit.model_server import ModelServer
from tests.api.conftest import auth
from tests.web_clients import Client, MakeClient
from worker.catalog import Catalog, prompt

RECALL = "/api/memory/customers/{}/recall"
ERASE = "/api/memory/customers/{}/delete-all"
AWKWARD_IDS = ["+34 611 22 33 44", "crm/person_42", "  José Ñúñez ", "a+b%2F?x=1&y#z"]


async def remember(memory: Memory, model_server: ModelServer, user_id: str, fact: str) -> None:
    model_server.answer([{"op": "add", "handle": None, "content": fact}], summary="Talked.")
    result = await memory.add("Something worth keeping.", "support", user_id)
    assert result.error is None, result.error


async def recall(client: Client, user_id: str, **extra: Any) -> tuple[int, Any]:
    response = await client.post(
        RECALL.format("support"), json={"userId": user_id, **extra}, headers=auth("memory-reader")
    )
    return response.status, await response.json()


class TestRecall:
    @pytest.mark.parametrize("user_id", AWKWARD_IDS)
    async def test_facts_and_calls_of_exactly_that_user(
        self, client: Client, memory: Memory, model_server: ModelServer, user_id: str
    ) -> None:
        """The user id travels byte for byte; a near-identical id is another person."""
        await remember(memory, model_server, user_id, "Prefers email.")
        await remember(memory, model_server, user_id.strip() + "0", "Someone else.")
        status, body = await recall(client, user_id)
        assert status == 200
        assert body["userId"] == user_id
        assert [f["content"] for f in body["facts"]] == ["Prefers email."]
        assert [c["summary"] for c in body["calls"]] == ["Talked."]
        assert set(body["facts"][0]) == {"id", "content", "createdAt", "updatedAt", "source"}

    async def test_calls_limit_is_applied(
        self, client: Client, memory: Memory, model_server: ModelServer
    ) -> None:
        """`calls` bounds how many call records come back, newest first."""
        for fact in ("One.", "Two.", "Three."):
            await remember(memory, model_server, "u1", fact)
        status, body = await recall(client, "u1", calls=2)
        assert status == 200
        assert len(body["calls"]) == 2
        assert len(body["facts"]) == 3

    async def test_unknown_person_is_empty(self, client: Client) -> None:
        """Someone never seen has no facts and no calls, and that is not an error."""
        assert await recall(client, "never-seen") == (
            200,
            {"agentId": "support", "userId": "never-seen", "facts": [], "calls": []},
        )

    @pytest.mark.parametrize(
        ("body", "field"),
        [
            ({}, "userId"),
            ({"userId": 5}, "userId"),
            ({"userId": ""}, "user_id"),
            ({"userId": "u", "calls": 101}, "calls"),
            ({"userId": "u", "calls": True}, "calls"),
            ({"userId": "u", "extra": 1}, "extra"),
        ],
    )
    async def test_invalid_requests_are_400(
        self, client: Client, body: dict[str, Any], field: str
    ) -> None:
        """Bad bodies answer 400 naming the field."""
        response = await client.post(RECALL.format("support"), json=body, headers=auth())
        assert response.status == 400
        error = (await response.json())["error"]
        assert error["code"] == "memory_invalid_request"
        assert error["field"] == field

    async def test_unknown_agent_is_404(self, client: Client) -> None:
        response = await client.post(RECALL.format("ghost"), json={"userId": "u"}, headers=auth())
        assert response.status == 404


class TestDeleteAll:
    async def test_erases_one_person_for_one_agent(
        self, client: Client, memory: Memory, model_server: ModelServer, pool: asyncpg.Pool
    ) -> None:
        """Facts and calls of that pair go; the other person's stay; the count is returned."""
        await remember(memory, model_server, "+34600", "Fact A.")
        await remember(memory, model_server, "+34601", "Fact B.")
        response = await client.post(
            ERASE.format("support"), json={"userId": "+34600"}, headers=auth("memory-eraser")
        )
        assert response.status == 200
        assert await response.json() == {"agentId": "support", "userId": "+34600", "deleted": 2}
        assert (await recall(client, "+34600"))[1]["facts"] == []
        assert [f["content"] for f in (await recall(client, "+34601"))[1]["facts"]] == ["Fact B."]
        left = await pool.fetchval("select count(*) from stackbone_platform.memory_facts")
        assert left == 1


class TestUnavailable:
    async def test_missing_schema_is_503_with_its_code(
        self, make_client: MakeClient, empty_database_url: str
    ) -> None:
        """Against a database without the migration the memory routes answer 503."""
        empty = await asyncpg.create_pool(empty_database_url, min_size=1, max_size=2)
        assert empty is not None
        try:
            undeclared = Catalog([define_agent(name="support", instructions=prompt("support"))])
            client = await make_client(on=empty, catalog=undeclared)
            status, body = await recall(client, "u1")
            assert status == 503
            assert body["error"]["code"] == "memory_schema_missing"
            settings = await client.get("/api/memory/settings/support", headers=auth())
            assert settings.status == 503
            assert (await settings.json())["error"]["code"] == "memory_schema_missing"
        finally:
            await empty.close()

    async def test_closed_pool_is_503_unavailable(
        self, make_client: MakeClient, pool: asyncpg.Pool
    ) -> None:
        """A database that cannot be reached answers 503, and health says so."""
        client = await make_client()
        await pool.close()
        status, body = await recall(client, "u1")
        assert status == 503
        assert body["error"]["code"] == "memory_unavailable"
        assert (await client.get("/healthz")).status == 503
