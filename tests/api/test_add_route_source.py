"""The add route's writes say where they came from: the channel the caller names (else `http`)
and the key that wrote, in the answer, in recall and in the ops log."""

from __future__ import annotations

from typing import Any

from testkit.model_server import ModelServer
from tests.api.conftest import auth
from tests.memory.helpers import add_op
from tests.web_clients import Client

ADD = "/api/memory/customers/support/add"
USER = "+34 611 22 33 44"


async def _add(client: Client, call: dict[str, Any] | None) -> Any:
    body: dict[str, Any] = {"userId": USER, "content": "Email me, please."}
    if call is not None:
        body["call"] = call
    response = await client.post(ADD, json=body, headers=auth("memory-writer"))
    assert response.status == 200, await response.text()
    return await response.json()


async def test_the_named_channel_and_the_key_are_the_source(
    client: Client, model_server: ModelServer
) -> None:
    model_server.answer([{**add_op("Prefers email."), "evidence": "email me"}])
    added = await _add(client, {"channel": "crm", "runId": "crm-ticket-9"})
    source = added["facts"][0]["source"]
    assert (source["channel"], source["callId"], source["evidence"]) == (
        "crm",
        "crm-ticket-9",
        "email me",
    )
    assert source["writer"] == {"agent": "support", "job": None, "key": "memory-writer"}
    assert added["call"]["source"]["channel"] == "crm"
    assert added["applied"][0]["source"] == source
    response = await client.post(
        "/api/memory/customers/support/recall", json={"userId": USER}, headers=auth()
    )
    assert (await response.json())["facts"][0]["source"] == source
    ops = await client.get("/api/memory/ops?agentId=support", headers=auth())
    assert (await ops.json())["events"][0]["channel"] == "crm"


async def test_without_a_channel_the_add_route_is_http(
    client: Client, model_server: ModelServer
) -> None:
    model_server.answer([add_op("Prefers email.")])
    added = await _add(client, None)
    assert added["facts"][0]["source"]["channel"] == "http"
