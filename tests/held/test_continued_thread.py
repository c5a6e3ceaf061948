"""A decision on a session that already kept turns: the continuation sends the model the kept
thread as it was said (each earlier turn's messages), then the parked turn. Before the fix the
earlier turns reached the model as single characters of their stored JSON text (the thread
read for a continuation decoded only a whole-thread string, not each turn's)."""

from __future__ import annotations

from testkit.model_server import ModelServer
from tests.held.conftest import CHAT_KEY
from tests.held.scripts import decide, refund, turn
from tests.web_clients import Client


async def test_the_continuation_sends_the_earlier_turns_as_kept(
    client: Client, model_server: ModelServer
) -> None:
    model_server.answer_text("Hello, how can I help?")
    status, _ = await turn(client, "Hi.", CHAT_KEY)
    assert status == 200
    refund(model_server)
    status, parked = await turn(client, "Refund A-1.", CHAT_KEY)
    assert status == 200, parked

    model_server.answer_text("Refunded.")
    status, body = await decide(
        client, parked["stackbone"]["decision"]["id"], {"decision": "approve"}
    )
    assert status == 200, body
    sent = model_server.requests[-1]["messages"]
    assert [(m["role"], m.get("content")) for m in sent[:4]] == [
        ("system", "You handle refunds."),
        ("user", "Hi."),
        ("assistant", "Hello, how can I help?"),
        ("user", "Refund A-1."),
    ]
    assert [m["role"] for m in sent[4:]] == ["assistant", "tool"]
