"""A memory save in the rest of a decided turn says where it came from: the deciding wire's
channel and key, and the session the turn keeps."""

from __future__ import annotations

import asyncpg

from memory.api import Memory
from memory.contract import Fact
from memory.settings import Overrides, SettingsUpdate
from memory.store import save_settings
from testkit.model_server import ModelServer
from tests.agui.conftest import run_body
from tests.held.conftest import CHAT_KEY, bearer
from tests.held.outside import AGENT
from tests.held.scripts import CUSTOMER, SESSION_KEY, call, calls, decide, refund, turn
from tests.memory.helpers import add_op
from tests.web_clients import Client


async def approved_with_a_save(
    client: Client, model_server: ModelServer, memory: Memory, decision_id: str
) -> Fact:
    """Approve the held refund over the decision route; the rest of the turn saves one fact,
    which is returned."""
    calls(model_server, call("memory_save", {"content": "email me the receipt"}, "call_save"))
    model_server.answer([{**add_op("Wants receipts by email."), "evidence": "email me"}])
    model_server.answer_text("Refunded, and noted.")
    status, decided = await decide(client, decision_id, {"decision": "approve"})
    assert status == 200, decided
    recalled = (await memory.recall(AGENT, CUSTOMER)).data
    assert recalled is not None
    (fact,) = recalled.facts
    return fact


async def test_a_save_after_a_decision_names_the_decider_and_the_session(
    client: Client, model_server: ModelServer, memory: Memory, pool: asyncpg.Pool
) -> None:
    await save_settings(pool, AGENT, SettingsUpdate(Overrides(save=True), None), "tester")
    refund(model_server)
    status, body = await turn(client, "Refund A-1, and email me the receipt", CHAT_KEY)
    assert status == 200, body
    pending = body["stackbone"]["decision"]
    fact = await approved_with_a_save(client, model_server, memory, pending["id"])
    session = await pool.fetchval(
        "select id::text from stackbone_platform.chat_sessions where session_key = $1",
        SESSION_KEY,
    )
    assert (fact.source.channel, fact.source.session_id) == ("chat", session)
    assert fact.source.writer.key == "decider" and fact.source.evidence == "email me"


async def test_a_turn_parked_on_agui_and_decided_over_http_saves_as_agui(
    client: Client, model_server: ModelServer, memory: Memory, pool: asyncpg.Pool
) -> None:
    """The decision route continues the turn with the channel of the wire that parked it."""
    await save_settings(pool, AGENT, SettingsUpdate(Overrides(save=True), None), "tester")
    refund(model_server)
    said = [{"id": "u1", "role": "user", "content": "Refund A-1, and email me the receipt"}]
    run = run_body(SESSION_KEY, said, forwardedProps={"customerId": CUSTOMER})
    async with client.post(f"/agui/{AGENT}", json=run, headers=bearer(CHAT_KEY)) as answer:
        assert answer.status == 200 and "RUN_FINISHED" in await answer.text()
    [pending] = await pool.fetch(
        "select id::text, progress->'turn'->>'channel' as channel"
        " from stackbone_platform.chat_decisions where status = 'pending'"
    )
    assert pending["channel"] == "agui"
    fact = await approved_with_a_save(client, model_server, memory, pending["id"])
    assert (fact.source.channel, fact.source.writer.key) == ("agui", "decider")
    channels = await pool.fetch("select source->>'channel' from stackbone_platform.memory_ops")
    assert {r[0] for r in channels} == {"agui"}
