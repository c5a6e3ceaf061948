"""Sessions on the chat wire: the thread kept in Postgres behind x-stackbone-session, grouping
without state behind x-stackbone-conversation, one turn at a time, and the operators' routes."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from memory.api import Memory
from testkit.fake_devices import wait_until
from testkit.model_server import ModelServer
from tests.chat.conftest import admin, chat_headers
from tests.web_clients import Client, MakeClient

SESSION = "x-stackbone-session"
CONVERSATION = "x-stackbone-conversation"


async def _say(client: Client, text: str, *, user: str = "crm/1", **headers: str) -> Any:
    body = {"model": "both", "messages": [{"role": "user", "content": text}], "user": user}
    return await client.post(
        "/v1/chat/completions",
        json=body,
        headers=chat_headers(**{k.replace("_", "-"): v for k, v in headers.items()}),
    )


def _said(request: dict[str, Any]) -> list[tuple[str, str]]:
    return [(m["role"], m["content"]) for m in request["messages"] if m["role"] != "system"]


async def test_a_session_keeps_the_thread_across_a_restart(
    make_client: MakeClient, model_server: ModelServer
) -> None:
    first = await make_client()
    model_server.answer_text("It ships Monday.")
    response = await _say(first, "Where is order A-1001?", x_stackbone_session="cust-4711")
    assert response.status == 200
    body = await response.text()
    await first.close()
    restarted = await make_client()  # a new app over the same database
    model_server.answer_text("Yes, within 30 days.")
    assert (
        await _say(restarted, "Can I return it?", x_stackbone_session="cust-4711")
    ).status == 200
    assert _said(model_server.requests[-1]) == [
        ("user", "Where is order A-1001?"),
        ("assistant", "It ships Monday."),
        ("user", "Can I return it?"),
    ]
    sessions = await (await restarted.get("/api/chat/sessions/both", headers=admin())).json()
    (session,) = sessions["sessions"]
    assert session["sessionId"] not in body  # the id never travels on the chat wire
    assert session["key"] == "cust-4711" and session["turns"] == 2


async def test_customers_sharing_a_key_get_separate_sessions(
    client: Client, model_server: ModelServer
) -> None:
    model_server.answer_text("one")
    model_server.answer_text("two")
    await _say(client, "I am the first", user="crm/1", x_stackbone_session="shared")
    await _say(client, "I am the second", user="crm/2", x_stackbone_session="shared")
    assert _said(model_server.requests[-1]) == [("user", "I am the second")]
    listed = await (await client.get("/api/chat/sessions/both", headers=admin())).json()
    assert sorted(s["userId"] for s in listed["sessions"]) == ["crm/1", "crm/2"]


async def test_a_conversation_groups_turns_without_keeping_them(
    client: Client, model_server: ModelServer
) -> None:
    model_server.answer_text("a")
    model_server.answer_text("b")
    await _say(client, "first", x_stackbone_conversation="ticket-9")
    await _say(client, "second", x_stackbone_conversation="ticket-9")
    assert _said(model_server.requests[-1]) == [("user", "second")]
    listed = await (await client.get("/api/chat/sessions/both", headers=admin())).json()
    (session,) = listed["sessions"]
    assert session["kind"] == "conversation" and session["turns"] == 2


async def test_both_headers_at_once_are_refused(client: Client) -> None:
    response = await _say(client, "x", x_stackbone_session="a", x_stackbone_conversation="b")
    assert response.status == 400
    error = (await response.json())["error"]
    assert error["field"] == SESSION and CONVERSATION in error["message"]


async def test_session_key_limits(client: Client, model_server: ModelServer) -> None:
    model_server.answer_text("ok")
    assert (await _say(client, "x", x_stackbone_session="k" * 200)).status == 200
    response = await _say(client, "x", x_stackbone_session="k" * 201)
    assert response.status == 400
    assert (await response.json())["error"]["field"] == SESSION


async def test_a_second_turn_at_once_is_a_409(client: Client, model_server: ModelServer) -> None:
    answering = asyncio.Event()  # the first turn's model answers once the second was refused
    model_server.answer_text("slow answer", hold=answering)
    first = asyncio.create_task(_say(client, "first", x_stackbone_session="busy"))
    try:  # until the first turn holds the session and waits on the model
        await wait_until(lambda: bool(model_server.requests))
        second = await _say(client, "second", x_stackbone_session="busy")
    finally:
        answering.set()
    assert second.status == 409
    error = (await second.json())["error"]
    assert error["code"] == "session_busy" and error["type"] == "invalid_request_error"
    assert (await first).status == 200
    model_server.answer_text("next")
    assert (await _say(client, "third", x_stackbone_session="busy")).status == 200
    assert _said(model_server.requests[-1]) == [
        ("user", "first"),
        ("assistant", "slow answer"),
        ("user", "third"),
    ]


async def test_a_failed_turn_releases_the_session_and_keeps_nothing(
    client: Client, model_server: ModelServer
) -> None:
    model_server.fail(500)
    assert (await _say(client, "lost", x_stackbone_session="k")).status == 502
    model_server.answer_text("ok")
    assert (await _say(client, "kept", x_stackbone_session="k")).status == 200
    assert _said(model_server.requests[-1]) == [("user", "kept")]


async def test_operators_open_and_delete_a_session(
    client: Client, model_server: ModelServer
) -> None:
    model_server.answer_text("older reply")
    model_server.answer_text("newer reply")
    await _say(client, "older one", x_stackbone_session="older")
    await _say(client, "hello", x_stackbone_session="newer")
    listed = await (await client.get("/api/chat/sessions/both", headers=admin())).json()
    assert [s["key"] for s in listed["sessions"]] == ["newer", "older"]  # newest first
    assert listed["sessions"][0]["identities"] == {"customerId": "crm/1"}
    newer = listed["sessions"][0]["sessionId"]
    opened = await client.get(f"/api/chat/sessions/both/{newer}", headers=admin())
    (turn,) = (await opened.json())["turns"]
    assert (turn["userMessage"], turn["reply"]) == ("hello", "newer reply")
    assert turn["promptTokens"] == 11 and turn["completionTokens"] == 7
    assert turn["durationMs"] > 0
    deleted = await client.delete(f"/api/chat/sessions/both/{newer}", headers=admin())
    assert deleted.status == 200
    gone = await client.get(f"/api/chat/sessions/both/{newer}", headers=admin())
    assert gone.status == 404
    again = await client.delete(f"/api/chat/sessions/both/{newer}", headers=admin())
    assert again.status == 404


async def _keys(client: Client, agent: str) -> list[str]:
    listed = await (await client.get(f"/api/chat/sessions/{agent}", headers=admin())).json()
    return sorted(s["key"] for s in listed["sessions"])


async def test_erasing_a_customer_deletes_every_session_that_named_them(
    client: Client, model_server: ModelServer, memory: Memory
) -> None:
    """Erasure reaches the person's sessions under every address: selected by the key, or
    named by another identity while the key was missing; other people's stay."""
    for _ in range(4):
        model_server.answer_text("ok")
    await _say(client, "mine", x_stackbone_session="by-key")  # both: key customerId
    await _say(client, "theirs", user="crm/2", x_stackbone_session="other")
    phone = {"model": "phone", "messages": [{"role": "user", "content": "hi"}], "user": "crm/1"}
    await client.post(  # phone: key phoneNumber missing, the person named by `user`
        "/v1/chat/completions", json=phone, headers=chat_headers(**{SESSION: "no-key"})
    )
    assert await _keys(client, "both") == ["by-key", "other"]
    assert await _keys(client, "phone") == ["no-key"]
    assert (await memory.delete_all("both", "crm/1")).error is None
    assert await _keys(client, "both") == ["other"]
    assert await _keys(client, "phone") == ["no-key"]  # another agent's erasure is its own
    assert (await memory.delete_all("phone", "crm/1")).error is None
    assert await _keys(client, "phone") == []


async def test_operator_routes_check_scope_and_limit(client: Client) -> None:
    chat_only = {"Authorization": chat_headers()["Authorization"]}
    assert (await client.get("/api/chat/sessions/both", headers=chat_only)).status == 403
    ok = await client.get("/api/chat/sessions/both?limit=100", headers=admin())
    assert ok.status == 200
    past = await client.get("/api/chat/sessions/both?limit=101", headers=admin())
    assert past.status == 400
    assert (await client.get("/api/chat/sessions/nobody", headers=admin())).status == 404
    bad = await client.get("/api/chat/sessions/both/not-an-id", headers=admin())
    assert bad.status == 404
    assert json.loads(await bad.text())["error"]["code"] == "session_not_found"
