"""Customer identity on the chat wire: `user` supplies only customerId, the identities header
is checked rule by rule (each limit at and past it), only the fixed key selects."""

from __future__ import annotations

import json
from typing import Any

import pytest
from structlog.testing import capture_logs

from testkit.model_server import ModelServer
from tests.chat.conftest import chat_headers
from tests.memory.helpers import add_op, stored
from tests.web_clients import Client

IDS = "x-stackbone-identities"


def _tools(server: ModelServer) -> list[str]:
    return [t["function"]["name"] for t in server.requests[-1].get("tools", [])]


async def _turn(
    client: Client, agent: str, *, user: Any = None, identities: str | None = None
) -> Any:
    body: dict[str, Any] = {"model": agent, "messages": [{"role": "user", "content": "Hi"}]}
    if user is not None:
        body["user"] = user
    headers = chat_headers() if identities is None else chat_headers(**{IDS: identities})
    return await client.post("/v1/chat/completions", json=body, headers=headers)


async def test_the_identities_header_supplies_the_configured_field(
    client: Client, model_server: ModelServer, pool: Any
) -> None:
    model_server.call_tool("memory_save", {"content": "Likes tea."})
    model_server.answer([add_op("Likes tea.")], "Tea.")
    model_server.answer_text("ok")
    header = json.dumps({"contact.email": "zo\u00eb@example.com ", "customerId": "c1"})
    assert header.isascii() and "\\u00eb" in header  # non-ASCII travels as a \u escape
    response = await _turn(client, "email", identities=header)
    assert response.status == 200
    assert [t["function"]["name"] for t in model_server.requests[0]["tools"]] == [
        "memory_read",
        "memory_save",
    ]
    facts = (await stored(pool, "email", "zo\u00eb@example.com "))["facts"]  # byte-for-byte
    assert [f["content"] for f in facts] == ["Likes tea."]
    assert (await stored(pool, "email", "c1"))["facts"] == []


async def test_user_supplies_only_customer_id(client: Client, model_server: ModelServer) -> None:
    model_server.answer_text("ok")
    model_server.answer_text("ok")
    assert (await _turn(client, "both", user="crm/1")).status == 200
    assert _tools(model_server) == ["memory_read", "memory_save"]
    assert (await _turn(client, "email", user="someone@example.com")).status == 200
    assert _tools(model_server) == []  # contact.email is not customerId


async def test_a_phone_shaped_user_never_supplies_the_phone_number(
    client: Client, model_server: ModelServer
) -> None:
    model_server.answer_text("ok")
    with capture_logs() as logs:
        assert (await _turn(client, "phone", user="+14155550100")).status == 200
    assert _tools(model_server) == []
    (event,) = [e for e in logs if e["event"] == "chat.no_memory"]
    assert event["reason"] == "identity_missing"
    assert "+14155550100" not in json.dumps(logs, default=str)


async def test_an_explicit_phone_number_identity_is_used(
    client: Client, model_server: ModelServer
) -> None:
    model_server.answer_text("ok")
    header = json.dumps({"phoneNumber": "+14155550100"})
    assert (await _turn(client, "phone", identities=header)).status == 200
    assert _tools(model_server) == ["memory_read", "memory_save"]


async def test_an_unbound_agent_offers_no_tools(client: Client, model_server: ModelServer) -> None:
    model_server.answer_text("ok")
    assert (await _turn(client, "unbound", user="crm/1")).status == 200
    assert _tools(model_server) == []


async def test_scalar_and_map_customer_id_must_agree(
    client: Client, model_server: ModelServer
) -> None:
    header = json.dumps({"customerId": "crm/2"})
    response = await _turn(client, "both", user="crm/1", identities=header)
    assert response.status == 400
    error = (await response.json())["error"]
    assert error["field"] == "user" and "customer_id_conflict" in error["message"]
    model_server.answer_text("ok")
    assert (await _turn(client, "both", user="crm/2", identities=header)).status == 200


def _many(n: int) -> str:
    return json.dumps({f"k{i}": "v" for i in range(n)})


@pytest.mark.parametrize(
    ("header", "ok", "rule"),
    [
        (_many(32), True, None),
        (_many(33), False, "identities_too_many"),
        (json.dumps({"n" * 100: "v"}), True, None),
        (json.dumps({"n" * 101: "v"}), False, "identity_name_too_long"),
        (json.dumps({"": "v"}), False, "identity_name_empty"),
        (json.dumps({"customerId": "v" * 500}), True, None),
        (json.dumps({"customerId": "v" * 501}), False, "identity_value_too_long"),
        (json.dumps({"customerId": ""}), False, "identity_value_empty"),
        (json.dumps({"customerId": 5}), False, "identity_value_not_string"),
        (json.dumps({"customerId": "a\u0000b"}), False, "must not contain NUL"),
        (json.dumps(["customerId"]), False, "identities_not_object"),
        ("null", False, "must be a JSON object"),
        ("{not json", False, "must be a JSON object"),
        ('{"a": "1", "a": "2"}', False, "more than once"),
    ],
)
async def test_every_header_rule_at_and_past_its_limit(
    client: Client, model_server: ModelServer, header: str, ok: bool, rule: str | None
) -> None:
    model_server.answer_text("ok")
    response = await _turn(client, "both", identities=header)
    if ok:
        assert response.status == 200
        return
    assert response.status == 400
    error = (await response.json())["error"]
    assert error["field"] == IDS
    assert rule is not None and rule in error["message"]


async def test_a_non_ascii_header_is_refused(client: Client) -> None:
    raw = '{"customerId": "zoë"}'.encode()
    response = await client.post(
        "/v1/chat/completions",
        json={"model": "both", "messages": [{"role": "user", "content": "x"}]},
        headers={**chat_headers(), IDS: raw.decode("latin-1")},
    )
    assert response.status == 400
    assert (await response.json())["error"]["field"] == IDS


async def test_user_value_limits(client: Client, model_server: ModelServer) -> None:
    model_server.answer_text("ok")
    assert (await _turn(client, "both", user="u" * 500)).status == 200
    response = await _turn(client, "both", user="u" * 501)
    assert response.status == 400
    assert (await response.json())["error"]["field"] == "user"
