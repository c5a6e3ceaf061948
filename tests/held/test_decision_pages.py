"""The decisions listing at any count: pages newest first, the next one named by the `Link`
header (an opaque keyset cursor), a `customer` filter (the customer the held turn acts for);
the body without the new parameters is what it always was; every limit refused past it."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import Any

from chat.paging import MAX_CURSOR_CHARS, MAX_CUSTOMER_CHARS, encode_cursor
from testkit.model_server import ModelServer
from tests.held.conftest import CHAT_KEY, DECIDER_KEY, bearer
from tests.held.scripts import refund, turn
from tests.web_clients import Client

PATH = "/api/chat/decisions"
NEXT = re.compile(r'^<(?P<url>[^>]+)>; rel="next"$')


async def park_for(client: Client, model_server: ModelServer, customer: str, key: str) -> str:
    """A turn of `customer` on session `key` parked on a refund: the decision's id."""
    refund(model_server)
    headers = {
        "x-stackbone-session": key,
        "x-stackbone-identities": json.dumps({"customerId": customer}),
    }
    status, body = await turn(client, "Refund A-1", CHAT_KEY, headers)
    assert status == 200, body
    ident: str = body["stackbone"]["decision"]["id"]
    return ident


async def listing(client: Client, url: str) -> tuple[int, Any, str | None]:
    response = await client.get(url, headers=bearer(DECIDER_KEY))
    link = response.headers.get("Link")
    found = None if link is None else NEXT.match(link)
    assert link is None or found is not None, link
    return response.status, await response.json(), None if found is None else found["url"]


async def walk(client: Client, url: str) -> list[list[str]]:
    pages: list[list[str]] = []
    next_url: str | None = url
    while next_url is not None:
        status, body, next_url = await listing(client, next_url)
        assert status == 200, body
        pages.append([d["id"] for d in body["decisions"]])
    return pages


async def test_decisions_page_by_cursor_and_filter_by_customer(
    client: Client, model_server: ModelServer
) -> None:
    made = [
        await park_for(client, model_server, customer, f"thread-{n}")
        for n, customer in enumerate(["cust-1", "cust-2", "cust-1", "cust-3", "cust-1"])
    ]
    status, whole, next_url = await listing(client, PATH)
    assert status == 200 and next_url is None and set(whole) == {"decisions"}
    newest_first = [d["id"] for d in whole["decisions"]]
    assert sorted(newest_first) == sorted(made)

    assert await walk(client, f"{PATH}?limit=2") == [
        newest_first[:2],
        newest_first[2:4],
        [newest_first[4]],
    ]
    ones = await walk(client, f"{PATH}?customer=cust-1&status=pending&limit=2")
    assert [i for p in ones for i in p] == [
        i for i in newest_first if i in (made[0], made[2], made[4])
    ]
    assert [len(p) for p in ones] == [2, 1]
    _, none, _ = await listing(client, f"{PATH}?customer=cust-9")
    assert none["decisions"] == []


async def test_limits_at_and_past_them_name_the_field(client: Client) -> None:
    status, body, _ = await listing(client, f"{PATH}?limit=100")
    assert status == 200 and body == {"decisions": []}
    session_cursor = encode_cursor(datetime(2026, 12, 1, tzinfo=UTC), "ab" * 16)
    for query, field in [
        ("limit=101", "limit"),
        ("cursor=%%%", "cursor"),
        (f"cursor={'A' * (MAX_CURSOR_CHARS + 1)}", "cursor"),
        (f"cursor={session_cursor}", "cursor"),  # a session listing's, not this one's
        (f"customer={'c' * (MAX_CUSTOMER_CHARS + 1)}", "customer"),
    ]:
        status, body, _ = await listing(client, f"{PATH}?{query}")
        assert (status, body["error"]["field"]) == (400, field), query
    status, body, _ = await listing(client, f"{PATH}?customer={'c' * MAX_CUSTOMER_CHARS}")
    assert status == 200 and body == {"decisions": []}
