"""A customer's fact history over HTTP: versions in order, the user id only in the body."""

from __future__ import annotations

from typing import Any

import pytest

from memory.api import Memory
from testkit.model_server import ModelServer
from tests.api.conftest import auth
from tests.web_clients import Client

HISTORY = "/api/memory/customers/{}/history"


async def say(memory: Memory, server: ModelServer, user_id: str, op: dict[str, Any]) -> None:
    server.answer([op], summary="Talked.")
    result = await memory.add("Something worth keeping.", "support", user_id)
    assert result.error is None, result.error


async def history(client: Client, body: dict[str, Any], key: str = "memory-reader") -> Any:
    return await client.post(HISTORY.format("support"), json=body, headers=auth(key))


async def test_versions_in_order_with_their_validity(
    client: Client, memory: Memory, model_server: ModelServer
) -> None:
    user = "+34 611 22 33 44"
    await say(
        memory, model_server, user, {"op": "add", "handle": None, "content": "Lives in Lima."}
    )
    await say(
        memory, model_server, user, {"op": "update", "handle": "f1", "content": "Lives in Cusco."}
    )
    await say(
        memory, model_server, user.strip() + "0", {"op": "add", "handle": None, "content": "Other."}
    )
    response = await history(client, {"userId": user})
    assert response.status == 200
    body = await response.json()
    assert (body["agentId"], body["userId"]) == ("support", user)
    old, new = body["versions"]
    assert set(old) == {
        "factId",
        "versionId",
        "content",
        "validFrom",
        "validTo",
        "endedBy",
        "source",
    }
    assert (old["content"], old["endedBy"], new["content"], new["endedBy"]) == (
        "Lives in Lima.",
        "update",
        "Lives in Cusco.",
        None,
    )
    assert old["factId"] == new["factId"]
    assert old["validTo"] == new["validFrom"] and new["validTo"] is None


async def test_unknown_person_has_no_versions(client: Client) -> None:
    response = await history(client, {"userId": "never-seen"})
    assert (response.status, await response.json()) == (
        200,
        {"agentId": "support", "userId": "never-seen", "versions": []},
    )


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "userId"),
        ({"userId": 5}, "userId"),
        ({"userId": ""}, "user_id"),
        ({"userId": "u" * 501}, "user_id"),
        ({"userId": "u", "calls": 1}, "calls"),
    ],
)
async def test_invalid_bodies_are_400_naming_the_field(
    client: Client, body: dict[str, Any], field: str
) -> None:
    response = await history(client, body)
    assert response.status == 400
    error = (await response.json())["error"]
    assert (error["code"], error["field"]) == ("memory_invalid_request", field)


async def test_needs_memory_read_and_a_known_agent(client: Client) -> None:
    assert (await history(client, {"userId": "u"}, key="memory-eraser")).status == 403
    unauthenticated = await client.post(HISTORY.format("support"), json={"userId": "u"})
    assert unauthenticated.status == 401
    unknown = await client.post(HISTORY.format("ghost"), json={"userId": "u"}, headers=auth())
    assert unknown.status == 404
