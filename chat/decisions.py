"""Pending decisions in Postgres: parking a turn, deciding it once, reading and listing them.

Parking writes the decision row and marks the session pending in one statement, fenced by the
turn's claim, and frees the claim: every new turn's one-statement claim then finds the session
pending and is refused (`DecisionPending`, 409; that reason is looked up only after a claim
failed, so ordinary turns pay nothing). Deciding is one statement too: the row leaves
`pending` only if it is still pending (two racing decisions: one wins, the other is
`DecisionTaken`) and the same statement clears the session's mark and claims it for the
continuation. Model text (arguments, thread additions) is escaped for Postgres at this
boundary (`memory.store.stored_json`) and read back exactly.
"""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final, get_args

from chat.held import (
    STATUS_OF,
    Decision,
    DecisionNotFound,
    DecisionTaken,
    PendingDecision,
    Status,
    ordered,
)
from chat.memory_tools import Channel
from chat.paging import Cursor, page
from chat.progress import progress_json, progress_of
from chat.session_claim import Claim, ClaimLost
from chat.snapshot import settings_json, settings_of
from chat.toolbox import Tool, client_tool
from chat.turn_result import TurnResult
from memory.contract import PersistFailed, Unavailable
from memory.settings import CallSettings
from memory.store import Queryable, read_json, stored_json, stored_text, translated

_S = "stackbone_platform"
MAX_LIST: Final = 100
Message = dict[str, Any]

_PARK = f"""with marked as (
  update {_S}.chat_sessions set pending_decision = $1::uuid, busy_until = null
   where id = $2 and claim = $3
  returning id)
insert into {_S}.chat_decisions (id, session_id, session_key, agent_id, tool_call_id, tool,
    arguments, allowed, identities, user_id, settings, progress)
select $1::uuid, id, $4, $5, $6, $7, $8, $9::text[], $10::jsonb, $11, $12::jsonb, $13::jsonb
  from marked
returning created_at"""
_COLUMNS = """id::text as id, session_id, session_key, agent_id, tool_call_id, tool, arguments,
  allowed, identities, user_id, settings, progress, status, decision, failure, created_at,
  decided_at"""
_ONE = f"select {_COLUMNS} from {_S}.chat_decisions where id = $1::uuid"
_LIST = f"""select {_COLUMNS} from {_S}.chat_decisions
 where ($1::text[] is null or agent_id = any($1)) and ($2::text is null or status = $2){{more}}
 order by created_at desc, id limit $3"""
_CUSTOMER = " and user_id = ${n}"
_AFTER = " and created_at <= ${n} and (created_at < ${n} or id > ${m}::uuid)"
_DECIDE = f"""with decided as (
  update {_S}.chat_decisions set status = $2, decision = $3::jsonb, decided_at = now()
   where id = $1::uuid and status = 'pending'
  returning session_id),
claimed as (
  update {_S}.chat_sessions as c
     set pending_decision = null, claim = c.claim + 1,
         busy_until = now() + make_interval(secs => $4)
   where c.id = (select session_id from decided) and c.pending_decision = $1::uuid
  returning c.claim, c.kind)
select (select session_id from decided) as session_id, claimed.claim, claimed.kind,
       clock_timestamp() as server_now
  from (select 1) one left join claimed on true"""
_FAILED = f"update {_S}.chat_decisions set failure = $2 where id = $1::uuid"


@dataclass(frozen=True, slots=True)
class HeldTurn:
    """Who a parked turn acts for and what it was sent: the server's, never a request's."""

    session_id: str
    session_key: str
    agent_id: str
    identities: dict[str, str]
    user_id: str | None
    settings: CallSettings  # the snapshot the turn (its first pause) started with
    new: list[Message]  # what the client sent on the turn
    options: dict[str, Any]
    user_message: str
    client_tools: tuple[Tool, ...] = ()  # the client's tools offered on the turn (AG-UI)
    channel: Channel = "chat"  # the wire that parked it: its continuation's saves and reads


@dataclass(frozen=True, slots=True)
class DecisionRow:
    pending: PendingDecision
    turn: HeldTurn
    progress: TurnResult
    status: Status
    decision: dict[str, Any] | None
    failure: str | None
    decided_at: datetime | None


@dataclass(frozen=True, slots=True)
class Decided:
    """The winner of a decision: the session claimed for the continuation."""

    claim: Claim
    kind: str  # the session's kind ("session" keeps a thread)


def _state(turn: HeldTurn, result: TurnResult) -> dict[str, Any]:
    offered = [
        {"name": t.name, "description": t.description, "parameters": t.parameters}
        for t in turn.client_tools
    ]
    sent = {
        "new": turn.new,
        "options": turn.options,
        "userMessage": turn.user_message,
        "clientTools": offered,
        "channel": turn.channel,
    }
    return progress_json(result) | {"turn": sent}


def _dump(value: Any) -> str:
    return json.dumps(stored_json(value), ensure_ascii=False)


async def park(db: Queryable, held: Claim, turn: HeldTurn, result: TurnResult) -> PendingDecision:
    """Store the parked call and mark the session pending (its claim freed); `ClaimLost` when
    another turn took the session meanwhile (nothing written)."""
    parked = result.parked
    assert parked is not None
    ident = str(uuid.uuid4())
    async with translated(PersistFailed, "decision park"):
        created = await db.fetchval(
            _PARK,
            ident,
            held.session_id,
            held.token,
            turn.session_key,
            turn.agent_id,
            parked.call.id,
            parked.call.name,
            stored_text(parked.call.arguments),
            list(parked.allowed),
            json.dumps(turn.identities, ensure_ascii=False),
            turn.user_id,
            json.dumps(settings_json(turn.settings), ensure_ascii=False),
            _dump(_state(turn, result)),
        )
    if created is None:
        raise ClaimLost()
    return PendingDecision(
        ident,
        turn.session_id,
        turn.session_key,
        turn.agent_id,
        parked.call.id,
        parked.call.name,
        parked.call.arguments,
        parked.allowed,
        created,
    )


def _loaded(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


def _channel(stored: Any) -> Channel:
    """The parking wire's channel; a row parked before it was kept reads as `chat`."""
    channels: tuple[Channel, ...] = get_args(Channel)
    return next((c for c in channels if c == stored), "chat")


def _row(r: Any) -> DecisionRow:
    state = read_json(_loaded(r["progress"]))
    sent = state["turn"]
    pending = PendingDecision(
        r["id"],
        r["session_id"],
        r["session_key"],
        r["agent_id"],
        r["tool_call_id"],
        r["tool"],
        read_json(r["arguments"]),
        ordered(r["allowed"]),
        r["created_at"],
    )
    turn = HeldTurn(
        r["session_id"],
        r["session_key"],
        r["agent_id"],
        _loaded(r["identities"]),
        r["user_id"],
        settings_of(_loaded(r["settings"])),
        sent["new"],
        sent["options"],
        sent["userMessage"],
        tuple(
            client_tool(t["name"], t["description"], t["parameters"])
            for t in sent.get("clientTools", ())
        ),
        _channel(sent.get("channel")),
    )
    decision = r["decision"]
    return DecisionRow(
        pending,
        turn,
        progress_of(state),
        r["status"],
        None if decision is None else read_json(_loaded(decision)),
        r["failure"],
        r["decided_at"],
    )


def check_decision_id(value: str) -> str:
    """A decision id as handed out (uuid4 text), else `DecisionNotFound`."""
    try:
        return str(uuid.UUID(value))
    except ValueError:
        raise DecisionNotFound() from None


async def read_decision(db: Queryable, decision_id: str) -> DecisionRow:
    async with translated(Unavailable, "decision read"):
        row = await db.fetchrow(_ONE, check_decision_id(decision_id))
    if row is None:
        raise DecisionNotFound()
    return _row(row)


async def list_decisions(
    db: Queryable, agents: list[str] | None, status: Status | None, limit: int = MAX_LIST
) -> list[DecisionRow]:
    """Decisions newest first, of `agents` (None: all) and of one status (None: any)."""
    rows, _ = await decision_page(db, agents, status, limit)
    return rows


def _list_statement(customer: str | None, after: Cursor | None) -> tuple[str, list[object]]:
    """The listing's statement for the filters given (the cursor bounds the index scan)."""
    more, args = "", list[object]()
    if customer is not None:
        more += _CUSTOMER.format(n=4)
        args.append(customer)
    if after is not None:
        n = 4 + len(args)
        more += _AFTER.format(n=n, m=n + 1)
        args += [after.at, after.id]
    return _LIST.format(more=more), args


async def decision_page(
    db: Queryable,
    agents: list[str] | None,
    status: Status | None,
    limit: int = MAX_LIST,
    *,
    customer: str | None = None,
    after: Cursor | None = None,
) -> tuple[list[DecisionRow], str | None]:
    """A page of decisions newest first, of `agents` (None: all), of one status (None: any)
    and of one customer (its `userId`, byte for byte), from `after`; with the next page's
    cursor (None: the last page)."""
    statement, args = _list_statement(customer, after)
    async with translated(Unavailable, "decision list"):
        rows = await db.fetch(statement, agents, status, limit + 1, *args)
    found = [_row(r) for r in rows]
    return page(found, limit, lambda d: (d.pending.created_at, d.pending.id))


def decision_json(decision: Decision) -> dict[str, Any]:
    return {"kind": decision.kind, "arguments": decision.arguments, "message": decision.message}


async def decide(
    db: Queryable, decision_id: str, decision: Decision, lease_seconds: float
) -> Decided:
    """Take the decision, if it is still pending, and claim its session for the continuation;
    `DecisionTaken` when another decision won (or this one is a replay)."""
    sent = time.monotonic()
    async with translated(PersistFailed, "decision take"):
        row = await db.fetchrow(
            _DECIDE,
            check_decision_id(decision_id),
            STATUS_OF[decision.kind],
            _dump(decision_json(decision)),
            lease_seconds,
        )
    assert row is not None
    if row["session_id"] is None:
        raise DecisionTaken()
    if row["claim"] is None:  # decided, but its session is gone (deleted meanwhile)
        raise DecisionTaken()
    held = Claim(row["session_id"], row["claim"], sent, row["server_now"], time.monotonic())
    return Decided(held, row["kind"])


async def mark_failed(db: Queryable, decision_id: str, code: str) -> None:
    """Note that the continuation of a taken decision failed (best effort by the caller)."""
    async with translated(PersistFailed, "decision failure"):
        await db.execute(_FAILED, decision_id, code)
