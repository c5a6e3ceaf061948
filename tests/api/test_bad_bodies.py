"""Bodies no route can use get a 400 naming the field and the rule, never a 500.

Every route that reads JSON is tried with bytes that are not UTF-8, a charset that does not
exist or is not UTF-8, nesting at and past the limit, duplicate keys and text that cannot be
stored (lone surrogates, NUL). Nothing is written by any of them.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from memory.contract._strict_json import MAX_DEPTH
from tests.api.conftest import auth
from tests.web_clients import Client

ROUTES: list[tuple[str, str]] = [
    ("PUT", "/api/memory/settings/support"),
    ("POST", "/api/memory/customers/support/recall"),
    ("POST", "/api/memory/customers/support/delete-all"),
    ("PUT", "/api/memory/extraction/guidance/draft"),
    ("PUT", "/api/memory/extraction/model"),
]


async def send(
    client: Client, method: str, path: str, body: bytes, content_type: str = "application/json"
) -> tuple[int, dict[str, Any]]:
    headers = {**auth(), "Content-Type": content_type}
    response = await client.request(method, path, data=body, headers=headers)
    return response.status, await response.json()


async def activity_count(client: Client) -> int:
    response = await client.get("/api/memory/activity", headers=auth())
    return len((await response.json())["entries"])


def nested(depth: int) -> bytes:
    """A body `{"x": [[...]]}` whose deepest array sits at nesting level `depth`."""
    return b'{"x": ' + b"[" * (depth - 1) + b"]" * (depth - 1) + b"}"


BAD: list[tuple[str, bytes, str, str, str]] = [
    # name, body, content type, field, words of the rule
    ("invalid UTF-8", b'{"userId": "\xff\xfe"}', "application/json", "body", "UTF-8"),
    ("overlong UTF-8", b'{"userId": "\xc0\xaf"}', "application/json", "body", "UTF-8"),
    (
        "unknown charset",
        b'{"userId": "u"}',
        "application/json; charset=no-such-charset",
        "Content-Type",
        "utf-8",
    ),
    (
        "a charset other than UTF-8",
        b'{"userId": "u"}',
        "application/json; charset=latin-1",
        "Content-Type",
        "utf-8",
    ),
    ("past the nesting limit", nested(MAX_DEPTH + 1), "application/json", "body", "nest deeper"),
    ("about 1,000 levels (2 kB)", b"[" * 1000 + b"]" * 1000, "application/json", "body", "nest"),
    ("100,000 levels", b"[" * 100_000, "application/json", "body", "nest"),
    ("duplicate keys", b'{"userId": "a", "userId": "b"}', "application/json", "userId", "more"),
    ("lone surrogate value", b'{"userId": "\\ud800"}', "application/json", "userId", "surrogate"),
    ("lone surrogate deeper", b'{"a": [{"b": "\\udfff"}]}', "application/json", "a[0].b", "surr"),
    ("lone surrogate key", b'{"\\ud800": 1}', "application/json", "body", "surrogate"),
    ("NUL", b'{"userId": "a\\u0000"}', "application/json", "userId", "NUL"),
    ("NaN", b'{"calls": NaN}', "application/json", "body", "valid JSON"),
    ("not JSON", b"{userId: 1}", "application/json", "body", "valid JSON"),
    (
        "a number of 5,000 digits",
        b'{"calls": ' + b"9" * 5_000 + b"}",
        "application/json",
        "calls",
        "digits",
    ),
    ("a number past a float's range", b'{"calls": 1e999}', "application/json", "calls", "finite"),
]


@pytest.mark.parametrize("route", ROUTES, ids=[f"{m} {p}" for m, p in ROUTES])
async def test_bad_bodies_are_400_with_code_and_field(
    client: Client, route: tuple[str, str]
) -> None:
    """Every case on one app per route (a database per case would only add set-up time)."""
    before = await activity_count(client)
    for name, body, content_type, field, rule in BAD:
        status, answer = await send(client, *route, body, content_type)
        assert status == 400, (name, answer)
        assert answer["error"]["code"] == "memory_invalid_request", name
        assert answer["error"]["field"] == field, name
        assert rule in answer["error"]["message"], name
    assert await activity_count(client) == before


async def test_nesting_at_the_limit_is_read(client: Client) -> None:
    """At the limit the body is parsed and then refused by the route's own rules (field `x`)."""
    status, answer = await send(client, "PUT", "/api/memory/settings/support", nested(MAX_DEPTH))
    assert status == 400
    assert answer["error"]["field"] == "x"
    assert "not a known field" in answer["error"]["message"]


@pytest.mark.parametrize("charset", ["utf-8", "UTF-8", "utf8"])
async def test_utf8_charsets_are_read(client: Client, charset: str) -> None:
    status, answer = await send(
        client,
        "POST",
        "/api/memory/customers/support/recall",
        '{"userId": "José \\ud83d\\ude00"}'.encode(),
        f"application/json; charset={charset}",
    )
    assert status == 200, answer
    assert answer["userId"] == "José \U0001f600"


async def test_a_surrogate_pair_in_a_user_id_is_one_character(client: Client) -> None:
    status, answer = await send(
        client, "POST", "/api/memory/customers/support/recall", b'{"userId": "\\ud83d\\ude00"}'
    )
    assert (status, answer["userId"]) == (200, "\U0001f600")


@pytest.mark.parametrize("token", [b"\xff\xfe", b"\xed\xa0\x80", b"caf\xc3\xa9"])
async def test_a_key_that_is_not_ascii_is_401_not_500(client: Client, token: bytes) -> None:
    """Header bytes that are not UTF-8 reach the app as surrogate escapes; still just a 401."""
    reader, writer = await asyncio.open_connection("127.0.0.1", client.server.port)
    writer.write(
        b"GET /api/memory/settings/support HTTP/1.1\r\nHost: x\r\n"
        b"Authorization: Bearer " + token + b"\r\nConnection: close\r\n\r\n"
    )
    answer = await reader.read()
    writer.close()
    assert answer.startswith(b"HTTP/1.1 401 "), answer[:80]
