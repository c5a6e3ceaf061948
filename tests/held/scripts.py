"""Scripted model answers and the requests the held-tool tests send."""

from __future__ import annotations

import json
from typing import Any

from testkit.model_server import ModelServer, Reply
from tests.held.conftest import ADMIN_KEY, CHAT_KEY, DECIDER_KEY, bearer
from tests.web_clients import Client

CUSTOMER = "cust-1"
SESSION_KEY = "thread-1"
HEADERS = {
    "x-stackbone-session": SESSION_KEY,
    "x-stackbone-identities": json.dumps({"customerId": CUSTOMER}),
}
REFUND = {"order_id": "A-1", "amount": 500}


def call(name: str, arguments: dict[str, Any] | str, ident: str) -> dict[str, Any]:
    raw = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"id": ident, "type": "function", "function": {"name": name, "arguments": raw}}


def calls(model_server: ModelServer, *items: dict[str, Any]) -> None:
    """Queue one model step calling these tools, in order."""
    model_server.replies.append(Reply(tool_calls=list(items), finish_reason="tool_calls"))


def refund(model_server: ModelServer, arguments: dict[str, Any] | None = None) -> None:
    calls(model_server, call("issue_refund", arguments or REFUND, "call_refund"))


async def decide(
    client: Client, decision_id: str, body: dict[str, Any], key: str = DECIDER_KEY
) -> tuple[int, dict[str, Any]]:
    response = await client.post(
        f"/api/chat/decisions/{decision_id}", json=body, headers=bearer(key)
    )
    return response.status, await response.json()


def wire_request(wire: str, text: str) -> tuple[str, dict[str, Any], dict[str, str]]:
    """One user message as the chat wire's clients send it to `refunds`: (path, body, key
    header); "openai" or "anthropic"."""
    messages = [{"role": "user", "content": text}]
    if wire == "openai":
        return "/v1/chat/completions", {"model": "refunds", "messages": messages}, bearer(CHAT_KEY)
    body = {"model": "refunds", "max_tokens": 100, "messages": messages}
    return "/v1/messages", body, {"x-api-key": CHAT_KEY, "anthropic-version": "2023-06-01"}


async def turn(client: Client, text: str, key: str, headers: dict[str, str] | None = None) -> Any:
    """One turn on the OpenAI wire with the session headers: (status, body)."""
    response = await client.post(
        "/v1/chat/completions",
        json={"model": "refunds", "messages": [{"role": "user", "content": text}]},
        headers=bearer(key) | (HEADERS if headers is None else headers),
    )
    return response.status, await response.json()


async def session_turns(client: Client, agent: str = "refunds") -> list[dict[str, Any]]:
    """The turns of the agent's only session, as the sessions route shows them."""
    listed = await (
        await client.get(f"/api/chat/sessions/{agent}", headers=bearer(ADMIN_KEY))
    ).json()
    [session] = listed["sessions"]
    one = await client.get(
        f"/api/chat/sessions/{agent}/{session['sessionId']}", headers=bearer(ADMIN_KEY)
    )
    body = await one.json()
    turns: list[dict[str, Any]] = body["turns"]
    return turns
