"""`x-should-retry: false` where the same request can never succeed or is not safe again, which
the official `openai` and `anthropic` clients obey over their own retries (issue 41): a decision
pending or already taken, a bad request, and a turn with no session whose tool acted before it
failed. A failure the same request may get past (the model failed before any tool ran) keeps the
clients' own rules."""

from __future__ import annotations

import json

from testkit.model_server import ModelServer
from tests.held.conftest import CHAT_KEY, bearer
from tests.held.scripts import HEADERS, call, calls, decide, refund
from tests.web_clients import Client

NO_SESSION = {k: v for k, v in HEADERS.items() if k != "x-stackbone-session"}


async def _turn(client: Client, headers: dict[str, str]) -> tuple[int, str | None, str]:
    response = await client.post(
        "/v1/chat/completions",
        json={"model": "refunds", "messages": [{"role": "user", "content": "Refund A-1"}]},
        headers=bearer(CHAT_KEY) | headers,
    )
    code = (await response.json()).get("error", {}).get("code", "")
    return response.status, response.headers.get("x-should-retry"), code


async def test_a_pending_or_taken_decision_is_final(
    client: Client, model_server: ModelServer
) -> None:
    refund(model_server)
    assert (await _turn(client, HEADERS))[0] == 200  # parked on the refund
    assert await _turn(client, HEADERS) == (409, "false", "decision_pending")
    pending = await client.get("/api/chat/decisions", headers=bearer(CHAT_KEY))
    assert pending.status in {200, 403}
    [row] = await _decisions(client)
    model_server.answer_text("Refunded.")
    assert (await decide(client, row, {"decision": "approve"}))[0] == 200
    response = await client.post(
        f"/api/chat/decisions/{row}", json={"decision": "approve"}, headers=_decider()
    )
    assert response.status == 409 and response.headers.get("x-should-retry") == "false"


async def test_a_bad_request_is_final(client: Client) -> None:
    response = await client.post(
        "/v1/chat/completions", json={"model": "refunds", "messages": []}, headers=bearer(CHAT_KEY)
    )
    assert response.status == 400 and response.headers.get("x-should-retry") == "false"


async def test_a_turn_without_a_session_whose_tool_acted_is_not_retried(
    client: Client, model_server: ModelServer
) -> None:
    calls(model_server, call("lookup_order", {"order_id": "A-1"}, "call_lookup"))
    model_server.fail(500)  # the model fails after the tool ran
    assert await _turn(client, NO_SESSION) == (502, "false", "chat_model_failed")
    model_server.fail(500)  # nothing ran: the clients' own rules apply
    assert await _turn(client, NO_SESSION) == (502, None, "chat_model_failed")


def _decider() -> dict[str, str]:
    from tests.held.conftest import DECIDER_KEY

    return bearer(DECIDER_KEY)


async def _decisions(client: Client) -> list[str]:
    listed = await client.get("/api/chat/decisions?agentId=refunds", headers=_decider())
    body = json.loads(await listed.text())
    return [d["id"] for d in body["decisions"]]
