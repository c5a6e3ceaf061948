"""Erasing a customer reaches a turn parked on a held tool: the pending decision (the call's
arguments, the turn so far, the identities) goes with the person's session, and another
customer's pending decision stays."""

from __future__ import annotations

import json

import asyncpg

from memory.api import Memory
from testkit.model_server import ModelServer
from tests.held.conftest import CHAT_KEY
from tests.held.scripts import HEADERS, SESSION_KEY, refund, turn
from tests.memory.test_erasure import SCHEMA, where_found
from tests.web_clients import Client


async def test_erasure_takes_the_persons_pending_decision_and_keeps_the_neighbours(
    client: Client, model_server: ModelServer, memory: Memory, pool: asyncpg.Pool
) -> None:
    neighbour = HEADERS | {"x-stackbone-identities": json.dumps({"customerId": "cust-2"})}
    refund(model_server, {"order_id": "zebraorder", "amount": 5})
    status, parked = await turn(client, "Refund my quokkamessage order", CHAT_KEY)
    assert status == 200 and parked["choices"][0]["finish_reason"] == "tool_calls", parked
    refund(model_server, {"order_id": "keptorder", "amount": 7})
    status, _ = await turn(client, "Refund my keptmessage order", CHAT_KEY, neighbour)
    assert status == 200

    gone, kept = ["zebraorder", "quokkamessage"], ["keptorder", "keptmessage"]
    assert f"{SCHEMA}.chat_decisions" in await where_found(pool, gone)
    assert (await memory.delete_all("refunds", "cust-1")).error is None
    assert await where_found(pool, gone) == {}
    assert set(await where_found(pool, kept)) == {f"{SCHEMA}.chat_decisions"}
    sessions = await pool.fetch(f"select session_key from {SCHEMA}.chat_sessions")
    assert [r["session_key"] for r in sessions] == [SESSION_KEY]  # the neighbour's
