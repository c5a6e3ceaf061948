"""The sessions listing at any count: pages of at most 100 newest first, the next one named by
the `Link` header (an opaque keyset cursor), a `customer` filter; the body without the new
parameters is what it always was; every limit refused past it, naming the field."""

from __future__ import annotations

import re
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg

from chat.paging import MAX_CURSOR_CHARS, MAX_CUSTOMER_CHARS, encode_cursor
from tests.chat.conftest import admin
from tests.web_clients import Client

PATH = "/api/chat/sessions/both"
S = "stackbone_platform"
BASE = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
NEXT = re.compile(r'^<(?P<url>[^>]+)>; rel="next"$')


async def seed(pool: asyncpg.Pool, count: int, agent: str = "both") -> list[str]:
    """`count` sessions of `agent`, three at each instant (ties ordered by id), customers
    crm/1 and crm/2 in turn: their ids in the listing's order (newest first, then id)."""
    rows = []
    for n in range(count):
        at = BASE + timedelta(seconds=n // 3)
        rows.append((uuid.uuid4().hex, agent, f"k{n}", f"crm/{n % 2 + 1}", at))
    await pool.executemany(
        f"""insert into {S}.chat_sessions (id, kind, agent_id, session_key, user_id, identities,
              customers, created_at, updated_at)
            values ($1, 'session', $2, $3, $4, jsonb_build_object('customerId', $4::text),
              array[$4::text], $5, $5)""",
        rows,
    )
    ordered = sorted(rows, key=lambda r: (-r[4].timestamp(), r[0]))
    return [r[0] for r in ordered]


async def listing(client: Client, url: str) -> tuple[int, Any, str | None]:
    """(status, body, the next page's URL or None)."""
    response = await client.get(url, headers=admin())
    link = response.headers.get("Link")
    found = None if link is None else NEXT.match(link)
    assert link is None or found is not None, link
    return response.status, await response.json(), None if found is None else found["url"]


async def walk(client: Client, url: str) -> list[list[str]]:
    pages = []
    next_url: str | None = url
    while next_url is not None:
        status, body, next_url = await listing(client, next_url)
        assert status == 200, body
        pages.append([s["sessionId"] for s in body["sessions"]])
    return pages


async def test_pages_follow_the_link_through_every_session_once_in_order(
    client: Client, pool: asyncpg.Pool
) -> None:
    ids = await seed(pool, 250)
    status, body, _ = await listing(client, PATH)
    assert status == 200 and set(body) == {"agentId", "sessions"}  # no paging member
    pages = await walk(client, PATH)
    assert [len(p) for p in pages] == [100, 100, 50]
    assert [i for p in pages for i in p] == ids
    small = await walk(client, f"{PATH}?limit=7")
    assert [i for p in small for i in p] == ids and max(len(p) for p in small) == 7


async def test_without_the_new_parameters_the_answer_is_as_before(
    client: Client, pool: asyncpg.Pool
) -> None:
    ids = await seed(pool, 5)
    response = await client.get(PATH, headers=admin())
    assert "Link" not in response.headers  # one page only
    body = await response.json()
    assert [s["sessionId"] for s in body["sessions"]] == ids
    assert set(body["sessions"][0]) == {
        "sessionId",
        "kind",
        "key",
        "userId",
        "identities",
        "createdAt",
        "updatedAt",
        "turns",
    }


async def test_a_page_is_not_shifted_by_sessions_used_meanwhile(
    client: Client, pool: asyncpg.Pool
) -> None:
    ids = await seed(pool, 6)
    _, first, next_url = await listing(client, f"{PATH}?limit=3")
    assert [s["sessionId"] for s in first["sessions"]] == ids[:3] and next_url is not None
    await pool.execute(f"update {S}.chat_sessions set updated_at = now() where id = $1", ids[5])
    _, second, _ = await listing(client, next_url)
    assert [s["sessionId"] for s in second["sessions"]] == ids[3:5]  # the moved one is above


async def test_the_customer_filter_keeps_one_customers_sessions_across_pages(
    client: Client, pool: asyncpg.Pool
) -> None:
    ids = await seed(pool, 30)
    pages = await walk(client, f"{PATH}?customer=crm%2F2&limit=4")
    found = [i for p in pages for i in p]
    listed = await pool.fetch(f"select id, user_id from {S}.chat_sessions")
    owner = {r["id"]: r["user_id"] for r in listed}
    assert found == [i for i in ids if owner[i] == "crm/2"] and len(found) == 15
    _, body, _ = await listing(client, f"{PATH}?customer=crm%2F3")
    assert body["sessions"] == []


async def test_limits_at_and_past_them_name_the_field(client: Client, pool: asyncpg.Pool) -> None:
    await seed(pool, 101)
    status, body, next_url = await listing(client, f"{PATH}?limit=100")
    assert status == 200 and len(body["sessions"]) == 100 and next_url is not None
    for query, field in [
        ("limit=101", "limit"),
        ("limit=0", "limit"),
        ("cursor=not-a-cursor", "cursor"),
        (f"cursor={'A' * (MAX_CURSOR_CHARS + 1)}", "cursor"),
        (f"cursor={encode_cursor(BASE, str(uuid.uuid4()))}", "cursor"),  # a decision's
        (f"customer={'c' * (MAX_CUSTOMER_CHARS + 1)}", "customer"),
        ("customer=", "customer"),
    ]:
        status, body, _ = await listing(client, f"{PATH}?{query}")
        assert (status, body["error"]["field"]) == (400, field), query
    status, body, _ = await listing(client, f"{PATH}?customer={'c' * MAX_CUSTOMER_CHARS}")
    assert status == 200 and body["sessions"] == []


async def test_another_agents_sessions_never_appear(client: Client, pool: asyncpg.Pool) -> None:
    await seed(pool, 3, agent="reader")
    ids = await seed(pool, 2)
    assert await walk(client, f"{PATH}?limit=1") == [[ids[0]], [ids[1]]]


async def test_the_document_names_the_parameters_and_the_link_header(client: Client) -> None:
    document = await (await client.get("/api/openapi.json")).json()
    for path in (PATH.replace("both", "{agentId}"), "/api/chat/decisions"):
        operation = document["paths"][path]["get"]
        names = {p["name"] for p in operation["parameters"] if p["in"] == "query"}
        assert {"limit", "cursor", "customer"} <= names, path
        assert "Link" in operation["responses"]["200"]["headers"], path
        assert "cursor" in operation["description"] and "Link" in operation["description"]
