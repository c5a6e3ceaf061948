"""A turn's end, written on its session: recorded whole (its messages, calls and results), or
parked on a held call with everything its continuation needs (`chat.decisions.park`)."""

from __future__ import annotations

from datetime import datetime

import asyncpg

from chat.decisions import HeldTurn, park
from chat.journal import request_digest
from chat.session_claim import Claim
from chat.tool_loop import TurnInput
from chat.turn_record import record
from chat.turn_request import SessionRef, TurnFacts, last_user_text, turn_record
from chat.turn_result import TurnResult


async def write_turn(  # noqa: PLR0917
    pool: asyncpg.Pool,
    held: Claim,
    session: SessionRef,
    facts: TurnFacts,
    turn: TurnInput,
    result: TurnResult,
    until: datetime | None,
) -> None:
    """Record the turn, or park it when it stopped on a held call (`result.held` is then the
    pending decision); `until`: the database's clock past which the record is not made."""
    if result.parked is None:
        digest = request_digest(facts.new, facts.options, facts.client_tools)
        done = turn_record(turn, result, facts.new, session.kind == "session", digest)
        await record(pool, held, done, until=until)
        return
    parked = HeldTurn(
        held.session_id,
        session.key,
        facts.agent,
        facts.identities,
        turn.context.user_id,
        facts.settings,
        facts.new,
        facts.options,
        last_user_text(facts.new),
        facts.client_tools,
        facts.origin.channel,
    )
    result.held = await park(pool, held, parked, result)
