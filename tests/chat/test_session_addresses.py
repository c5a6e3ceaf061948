"""Sessions per customer (issue 31, defect 1): a thread is never shared between two customers
named on any wire, whether or not the agent's identity key is present; turns naming nobody have
an address space of their own. `phone` is keyed on `phoneNumber`, like the shipped `support`."""

from __future__ import annotations

import json
from typing import Any

import asyncpg
import pytest

from chat import session_id, session_scope
from memory.store import offer_code_bindings
from testkit.model_server import ModelServer
from tests.chat.conftest import admin, chat_headers
from tests.web_clients import Client

SESSION = "x-stackbone-session"
IDENTITIES = "x-stackbone-identities"


async def _openai(client: Client, text: str, user: str | None, **headers: str) -> int:
    body: dict[str, Any] = {"model": "phone", "messages": [{"role": "user", "content": text}]}
    if user is not None:
        body["user"] = user
    response = await client.post("/v1/chat/completions", json=body, headers=chat_headers(**headers))
    return response.status


async def _anthropic(client: Client, text: str, user: str | None, **headers: str) -> int:
    body: dict[str, Any] = {
        "model": "phone",
        "max_tokens": 50,
        "messages": [{"role": "user", "content": text}],
    }
    if user is not None:
        body["metadata"] = {"user_id": user}
    response = await client.post("/v1/messages", json=body, headers=chat_headers(**headers))
    return response.status


WIRES = [pytest.param(_openai, id="openai"), pytest.param(_anthropic, id="anthropic")]


def _seen(model_server: ModelServer) -> list[str]:
    """The user messages the model got in its last request."""
    return [m["content"] for m in model_server.requests[-1]["messages"] if m["role"] == "user"]


@pytest.mark.parametrize("say", WIRES)
async def test_two_customers_on_one_key_without_the_configured_field_never_share(
    client: Client, model_server: ModelServer, say: Any
) -> None:
    for _ in range(4):
        model_server.answer_text("noted")
    assert await say(client, "I am customer A", "crm/a", **{SESSION: "k"}) == 200
    assert await say(client, "I am customer B", "crm/b", **{SESSION: "k"}) == 200
    assert _seen(model_server) == ["I am customer B"]
    assert await say(client, "Nobody here", None, **{SESSION: "k"}) == 200
    assert _seen(model_server) == ["Nobody here"]  # no identity: an address space of its own
    assert await say(client, "A again", "crm/a", **{SESSION: "k"}) == 200
    assert _seen(model_server) == ["I am customer A", "A again"]  # the same customer continues
    listed = await (await client.get("/api/chat/sessions/phone", headers=admin())).json()
    named = sorted(json.dumps(s["identities"]) for s in listed["sessions"])
    assert named == ['{"customerId": "crm/a"}', '{"customerId": "crm/b"}', "{}"]
    assert {s["userId"] for s in listed["sessions"]} == {None}  # nobody under phoneNumber


async def test_identities_maps_naming_different_people_never_share(
    client: Client, model_server: ModelServer
) -> None:
    for _ in range(3):
        model_server.answer_text("noted")
    one = json.dumps({"contact.email": "a@example.com"})
    two = json.dumps({"contact.email": "b@example.com"})
    await _openai(client, "from a", None, **{SESSION: "k", IDENTITIES: one})
    await _openai(client, "from b", None, **{SESSION: "k", IDENTITIES: two})
    assert _seen(model_server) == ["from b"]
    # the configured field present: the same phone with another person's `user` is apart too
    phone = json.dumps({"phoneNumber": "+34 600 00 00 01"})
    await _openai(client, "phone only", None, **{SESSION: "p", IDENTITIES: phone})
    model_server.answer_text("noted")
    await _openai(client, "phone and crm/b", "crm/b", **{SESSION: "p", IDENTITIES: phone})
    assert _seen(model_server) == ["phone and crm/b"]


def test_the_legacy_addresses_stay_byte_identical() -> None:
    """Addresses that named one customer (or nobody) before keep their ids."""
    assert session_scope("customerId", {"customerId": "a"}) == ["bound", "customerId", "a"]
    assert session_scope("phoneNumber", {}) == ["missing", "phoneNumber"]
    assert session_scope(None, {"customerId": "a"}) == ["unbound", "a"]
    assert session_scope(None, {}) == ["unbound", None]
    assert session_id("session", "support", "k", ["bound", "customerId", "a"]) == session_id(
        "session", "support", "k", session_scope("customerId", {"customerId": "a"})
    )


def test_every_identity_given_separates_addresses() -> None:
    def ident(key: str | None, identities: dict[str, str]) -> str:
        return session_id("session", "support", "k", session_scope(key, identities))

    maps = [
        {},
        {"customerId": "a"},
        {"customerId": "b"},
        {"email": "a"},
        {"customerId": "a", "email": "a"},
    ]
    for key in (None, "phoneNumber", "customerId"):
        ids = [ident(key, m) for m in maps]
        assert len(set(ids)) == len(ids), key
    # order never matters: the address is a function of the map
    assert ident("phoneNumber", {"a": "1", "b": "2"}) == ident("phoneNumber", {"b": "2", "a": "1"})


async def test_a_key_bound_outside_the_code_still_reaches_one_thread(
    client: Client, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    """`unbound` declares no key in code; one set elsewhere (the studio) is learnt by the
    first turn's statement (which then claims under the right address) and predicted after."""
    await offer_code_bindings(pool, {"unbound": "contact.email"})
    email = json.dumps({"contact.email": "a@example.com"})
    for text in ("first", "second", "third"):
        model_server.answer_text("ok")
        body = {"model": "unbound", "messages": [{"role": "user", "content": text}]}
        headers = chat_headers(**{SESSION: "k", IDENTITIES: email})
        response = await client.post("/v1/chat/completions", json=body, headers=headers)
        assert response.status == 200
    assert _seen(model_server) == ["first", "second", "third"]
    listed = await (await client.get("/api/chat/sessions/unbound", headers=admin())).json()
    (session,) = listed["sessions"]
    assert session["userId"] == "a@example.com" and session["turns"] == 3
