"""One person's export reaches every table that names them (a schema scan, as the erasure
test's), holds nothing of a neighbour, and is empty after delete-all.

The held tools' app gives every kind of row a person can have: chat sessions, turns with
their run detail and a parked decision; memory adds, a running call's journal and an
idempotency key are written beside them through their own modules.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import asyncpg

from memory.api import Memory
from memory.settings import NO_BRIEF
from memory.store import (
    EXPORT_SECTIONS,
    JournalEntry,
    JournalHeader,
    KeyOf,
    append_entries,
    claim_key,
    export_person,
    open_journal,
)
from memory.store._export import COUNTER_TABLE
from testkit.model_server import ModelServer
from tests.held.conftest import ADMIN_KEY, CHAT_KEY, bearer
from tests.held.scripts import HEADERS, refund, turn
from tests.memory.helpers import add_op, delete_op, update_op
from tests.memory.test_erasure import SCHEMA, where_found
from tests.web_clients import Client
from worker.http.server.answers import MemoryExport

AGENT, PERSON, NEIGHBOUR = "refunds", "cust-1", "cust-2"
NEIGHBOUR_HEADERS = HEADERS | {"x-stackbone-identities": json.dumps({"customerId": NEIGHBOUR})}
MINE = ["zanzibarquokka", "quetzalmarmot", "narwhalsummary", "heardtapir", "quokkamessage"]
THEIRS = ["keptaxolotl", "keptsummarylemur", "keptheardlynx", "keptmessage"]


async def remember(memory: Memory, server: ModelServer, user: str, *ops: Any, summary: str) -> None:
    server.answer(list(ops), summary)
    assert (await memory.add("hi", AGENT, user)).error is None


async def journal(pool: asyncpg.Pool, user: str, heard: str) -> None:
    header = JournalHeader(
        f"AJ_{user}", AGENT, user, "Note pets.", NO_BRIEF, "call.ended", datetime.now(UTC)
    )
    journal_id = await open_journal(pool, header)
    assert await append_entries(pool, journal_id, [JournalEntry(0, "user", heard)])


async def everything(
    client: Client, memory: Memory, server: ModelServer, pool: asyncpg.Pool
) -> None:
    """The person and a neighbour, each with every kind of record."""
    await remember(memory, server, PERSON, add_op("Owns a zanzibarquokka."), summary="s")
    await remember(
        memory, server, PERSON, update_op("f1", "Owns a quetzalmarmot."), summary="narwhalsummary"
    )
    await remember(memory, server, PERSON, add_op("Temporary."), summary="s")
    await remember(memory, server, PERSON, delete_op("f2"), summary="s")
    await remember(
        memory, server, NEIGHBOUR, add_op("Has a keptaxolotl."), summary="keptsummarylemur"
    )
    await journal(pool, PERSON, "My heardtapir is ill.")
    await journal(pool, NEIGHBOUR, "My keptheardlynx is fine.")
    for user in (PERSON, NEIGHBOUR):
        await claim_key(pool, KeyOf(AGENT, user, f"key-{user}"), "digest", stale_after_seconds=60)
    server.answer_text("Hello.")
    assert (await turn(client, "Hi there", CHAT_KEY))[0] == 200
    refund(server, {"order_id": "zebraorder", "amount": 5})
    assert (await turn(client, "Refund my quokkamessage order", CHAT_KEY))[0] == 200
    refund(server, {"order_id": "keptorder", "amount": 7})
    assert (await turn(client, "Refund my keptmessage order", CHAT_KEY, NEIGHBOUR_HEADERS))[
        0
    ] == 200


async def exported(pool: asyncpg.Pool, user: str, page: int = 2) -> dict[str, Any]:
    pieces = [piece async for piece in export_person(pool, AGENT, user, page=page)]
    document: dict[str, Any] = json.loads("".join(pieces))
    return document


async def naming(pool: asyncpg.Pool, table: str, user: str) -> int:
    """Rows of `table` whose text form holds the user id (any column)."""
    count: int = await pool.fetchval(
        f"select count(*) from {table} t where t::text like $1", f"%{user}%"
    )
    return count


async def test_the_export_covers_every_table_that_names_the_person(
    client: Client, memory: Memory, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    """A table added later that holds a row naming the person fails here until the export
    reads it."""
    await everything(client, memory, model_server, pool)
    document = await exported(pool, PERSON)
    sections = {f"{SCHEMA}.{s.table}": s.name for s in EXPORT_SECTIONS}
    named = await where_found(pool, [PERSON])
    missing = set(named) - set(sections) - {f"{SCHEMA}.{COUNTER_TABLE}"}
    assert not missing, f"tables naming the person but not exported: {sorted(missing)}"
    for table in set(named) & set(sections):
        assert len(document[sections[table]]) >= await naming(pool, table, PERSON), table
    for kind in ("facts", "factVersions", "calls", "opsEvents", "journals", "journalEntries"):
        assert document[kind], kind
    for kind in ("chatSessions", "chatTurns", "decisions", "idempotencyKeys"):
        assert document[kind], kind
    text = json.dumps(document)
    assert all(marker in text for marker in MINE), [m for m in MINE if m not in text]
    assert not [marker for marker in [*THEIRS, NEIGHBOUR] if marker in text]
    assert document["revision"] == 4 and document["userId"] == PERSON


async def test_a_page_of_one_row_and_a_large_page_give_the_same_document(
    client: Client, memory: Memory, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    await everything(client, memory, model_server, pool)
    one, large = await exported(pool, PERSON, page=1), await exported(pool, PERSON, page=10_000)
    assert {k: v for k, v in one.items() if k != "exportedAt"} == {
        k: v for k, v in large.items() if k != "exportedAt"
    }


async def test_after_delete_all_every_list_is_empty_and_the_neighbour_keeps_theirs(
    client: Client, memory: Memory, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    await everything(client, memory, model_server, pool)
    assert (await memory.delete_all(AGENT, PERSON)).error is None
    document = await exported(pool, PERSON)
    assert all(document[s.name] == [] for s in EXPORT_SECTIONS), document
    assert document["revision"] == 5  # the counter stays, so an add in flight conflicts
    neighbour = json.dumps(await exported(pool, NEIGHBOUR))
    assert all(marker in neighbour for marker in THEIRS)
    assert not await where_found(pool, MINE)


async def test_the_route_streams_the_document_it_documents(
    client: Client, memory: Memory, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    await everything(client, memory, model_server, pool)
    path = f"/api/memory/customers/{AGENT}/export"
    response = await client.post(path, json={"userId": PERSON}, headers=bearer(ADMIN_KEY))
    assert response.status == 200, await response.text()
    assert response.content_type == "application/json"
    assert "attachment" in response.headers["Content-Disposition"]
    body = await response.json()
    assert set(body) == set(MemoryExport.model_json_schema(by_alias=True)["properties"])
    assert body["facts"][0]["content"] == "Owns a quetzalmarmot."
    refused = await client.post(path, json={"userId": PERSON}, headers=bearer(CHAT_KEY))
    assert refused.status == 403
    blank = await client.post(path, json={"userId": ""}, headers=bearer(ADMIN_KEY))
    assert blank.status == 400 and "user_id" in (await blank.json())["error"]["message"]
    nobody = await client.post(path, json={"userId": "nobody"}, headers=bearer(ADMIN_KEY))
    assert all(v == [] for k, v in (await nobody.json()).items() if isinstance(v, list))
