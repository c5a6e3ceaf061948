"""What the console's tests and screenshots show: customers with facts and calls (through the
memory API and the local model server), a chat session (through the chat wire) and a document
collection (through the upload route), all made the way the service makes them."""

from __future__ import annotations

import json
from typing import Any

from memory.api import Memory
from testkit.model_server import ModelServer
from tests.memory.helpers import add_op, update_op
from tests.screen.conftest import Client, auth
from tests.waiting import eventually

AWKWARD = "+34 611 22 33 44"  # a leading +, spaces: shown and sent exactly as stored
UNICODE = "José Ñúñez"
SESSION_KEY = "web-chat-4711"
RETURNS = (
    "# Returns policy\n\nItems can be returned within 30 days of delivery with the receipt.\n\n"
    "## Refunds\n\nRefunds reach the original card within five working days.\n"
)
SHIPPING = "Shipping\n\nOrders ship from Valencia on weekdays; express delivery takes one day.\n"


async def _call(
    memory: Memory, server: ModelServer, user: str, ops: list[dict[str, Any]], **call: Any
) -> None:
    server.answer(ops, call.pop("summary"))
    result = await memory.add("Something worth keeping.", "support", user, call)
    assert result.error is None, result.error


async def seed_memory(memory: Memory, server: ModelServer) -> None:
    await _call(
        memory,
        server,
        AWKWARD,
        [add_op("Asked not to be called again."), add_op("Has a blue Corolla.")],
        summary="Complained about marketing calls.",
        started_at="2026-11-02T10:00:00+00:00",
        duration_seconds=83,
        outcome="resolved",
    )
    await _call(
        memory,
        server,
        AWKWARD,
        [update_op("f2", "Has a red Corolla.")],
        summary="Booked a service for the Corolla.",
        started_at="2026-11-20T16:30:00+00:00",
        duration_seconds=241.6,
        outcome="scheduled",
    )
    await _call(
        memory,
        server,
        UNICODE,
        [add_op("Prefiere el teléfono por la tarde.")],
        summary="Llamada corta.",
        started_at="2026-11-21T09:00:00+00:00",
        duration_seconds=30,
        outcome="callback",
    )


async def say(client: Client, server: ModelServer, text: str, reply: str) -> None:
    """One text turn on the chat wire in the session `SESSION_KEY`, as `AWKWARD`."""
    server.answer_text(reply)
    response = await client.post(
        "/v1/chat/completions",
        json={"model": "support", "messages": [{"role": "user", "content": text}]},
        headers={
            **auth(),
            "x-stackbone-session": SESSION_KEY,
            "x-stackbone-identities": json.dumps({"phoneNumber": AWKWARD}),
        },
    )
    assert response.status == 200, await response.text()


async def seed_session(client: Client, server: ModelServer) -> None:
    await say(client, server, "Is my Corolla booked for Friday?", "Yes, Friday at 9:00.")
    await say(client, server, "Can I bring it at 8?", "The workshop opens at 8:30.")


async def upload(client: Client, name: str, body: str, content_type: str) -> dict[str, Any]:
    response = await client.post(
        f"/api/documents/collections/help/documents?source={name}",
        data=body.encode(),
        headers={**auth(), "Content-Type": content_type},
    )
    assert response.status == 202, await response.text()
    document: dict[str, Any] = await response.json()
    return document


async def ready(client: Client, document_id: str) -> None:

    async def is_ready() -> bool:
        response = await client.get(f"/api/documents/documents/{document_id}", headers=auth())
        return bool((await response.json())["status"] == "ready")

    await eventually(is_ready, f"document {document_id} ready")


async def seed_documents(client: Client) -> None:
    for name, body, kind in (
        ("returns.md", RETURNS, "text/markdown"),
        ("shipping.txt", SHIPPING, "text/plain"),
    ):
        await ready(client, (await upload(client, name, body, kind))["id"])
