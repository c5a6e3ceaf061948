"""The decisions store on its own (real Postgres): a parked turn reads back whole (the client's
tools offered on it and the channel of the wire that parked it included), a pending session
refuses every claim with `DecisionPending`, and taking a decision frees the mark and claims the
session in one statement."""

from __future__ import annotations

from dataclasses import replace

import asyncpg
import pytest

from chat import (
    Decision,
    DecisionPending,
    DecisionTaken,
    HeldTurn,
    SessionAddress,
    ToolCall,
    TurnResult,
    claim,
    client_tool,
    decide,
    park,
    read_decision,
)
from chat.memory_tools import Channel
from chat.turn_result import Parked
from memory.settings import CallSettings

ADDRESS = SessionAddress(
    "s" * 32, "session", "refunds", "thread-1", "cust-1", {"customerId": "cust-1"}
)
ASK = client_tool("ask_user", "Ask the person.", {"type": "object", "properties": {}})


def held_turn() -> HeldTurn:
    return HeldTurn(
        ADDRESS.id,
        ADDRESS.key,
        "refunds",
        {"customerId": "cust-1"},
        "cust-1",
        CallSettings(True, False, None, None),
        [{"role": "user", "content": "Refund \u0000 A-1"}],
        {"temperature": 0.2},
        "Refund \u0000 A-1",
        (ASK,),
    )


async def test_a_parked_turn_reads_back_and_blocks_its_session(pool: asyncpg.Pool) -> None:
    held = await claim(pool, ADDRESS, 10)
    result = TurnResult(steps=1, parked=Parked(ToolCall("r1", "issue_refund", "{}"), ("approve",)))
    pending = await park(pool, held, held_turn(), result)
    row = await read_decision(pool, pending.id)
    assert row.turn.new == held_turn().new and row.turn.options == {"temperature": 0.2}
    assert row.turn.user_message == "Refund \u0000 A-1"
    [ask] = row.turn.client_tools
    assert (ask.name, ask.kind, ask.parameters) == ("ask_user", "client", ASK.parameters)
    assert row.status == "pending" and row.pending.allowed == ("approve",)
    with pytest.raises(DecisionPending) as refused:
        await claim(pool, ADDRESS, 10)
    assert pending.id in refused.value.message

    decided = await decide(pool, pending.id, Decision("approve"), 10)
    assert decided.kind == "session" and decided.claim.token == held.token + 1
    with pytest.raises(DecisionTaken):
        await decide(pool, pending.id, Decision("approve"), 10)
    assert (await read_decision(pool, pending.id)).status == "approved"


@pytest.mark.parametrize(("stored", "read"), [("agui", "agui"), ("chat", "chat"), (None, "chat")])
async def test_the_parking_wire_reads_back_and_an_older_row_reads_as_chat(
    pool: asyncpg.Pool, stored: Channel | None, read: str
) -> None:
    held = await claim(pool, ADDRESS, 10)
    result = TurnResult(steps=1, parked=Parked(ToolCall("r1", "issue_refund", "{}"), ("approve",)))
    pending = await park(pool, held, replace(held_turn(), channel=stored or "chat"), result)
    if stored is None:  # a row parked before the channel was kept
        await pool.execute(
            "update stackbone_platform.chat_decisions"
            " set progress = progress #- '{turn,channel}' where id = $1::uuid",
            pending.id,
        )
    assert (await read_decision(pool, pending.id)).turn.channel == read
