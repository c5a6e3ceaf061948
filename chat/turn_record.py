"""What a turn writes on its claimed session: its record, its progress while it runs, and a cut
turn (one that never reached its record) folded into the thread.

Every write names the turn's fencing token (`chat.session_claim`), so a turn whose claim was
taken over changes nothing (`ClaimLost`). The record appends the turn and frees the session in
one statement, and only if the database runs it before the turn's deadline, read on the
database's own clock: a record that arrives later (the database was frozen while the client
was told the turn failed) keeps the finished turn as the session's progress instead, so the
client's retry is answered from it and the turn is never kept twice. The progress is written
after each tool call that acts (`chat.journal`); those writes are never fenced by a deadline,
since what they say happened. Text a model wrote is escaped for Postgres at this boundary.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from chat.session_claim import Claim, ClaimLost
from memory.contract import PersistFailed, Unavailable
from memory.store import Queryable, stored_json, stored_text, translated

_S = "stackbone_platform"
_TURN_COLUMNS = """session_id, position, messages, user_message, reply, prompt_tokens,
      completion_tokens, duration_ms, run, request_digest"""
_LATE = """case when $11::int is null then null else jsonb_build_object(
    'digest', $12::text, 'complete', true, 'newCount', $11::int, 'finishReason', $13::text,
    'userMessage', $4::text, 'reply', $5::text, 'messages', $3::jsonb, 'promptTokens', $6::int,
    'completionTokens', $7::int, 'durationMs', $8::float8, 'run', $9::jsonb) end"""
_RECORD = f"""with timely as (
  select clock_timestamp() < coalesce($10::timestamptz, 'infinity') as yes),
done as (
  update {_S}.chat_sessions
     set turns = turns + (select yes from timely)::int, updated_at = now(), busy_until = null,
         progress = case when (select yes from timely) then null else {_LATE} end
   where id = $1 and claim = $2
  returning turns - 1 as position, (select yes from timely) as in_time),
kept as (
  insert into {_S}.chat_turns ({_TURN_COLUMNS})
  select $1, position, $3::jsonb, $4, $5, $6, $7, $8, $9::jsonb, $12 from done where in_time
  returning position)
select (select in_time from done) as in_time"""
_PROGRESS = f"""update {_S}.chat_sessions set progress = $3::jsonb
 where id = $1 and claim = $2 returning 1"""
_CUT = f"""with done as (
  update {_S}.chat_sessions set turns = turns + 1, updated_at = now(), progress = null
   where id = $1 and claim = $2
  returning turns - 1 as position)
insert into {_S}.chat_turns ({_TURN_COLUMNS})
select $1, position, $3::jsonb, $4, $5, $6, $7, $8, $9::jsonb, $10 from done
returning position"""


class RecordLate(Unavailable):
    """The turn's record reached the database after its deadline: it was not recorded but kept
    as the session's progress, so the same request sent again is answered from it."""

    def __init__(self) -> None:
        super().__init__("the database did not answer within the deadline")


@dataclass(frozen=True, slots=True)
class TurnRecord:
    messages: list[dict[str, Any]]  # what the thread keeps of this turn
    user_message: str
    reply: str
    prompt_tokens: int
    completion_tokens: int
    duration_ms: float
    run: list[dict[str, Any]] = field(default_factory=list)  # the run detail (`chat.progress`)
    digest: str | None = None  # the request the turn answered (`chat.journal`)
    new_count: int = 0  # how many of `messages` the client sent (the rest the turn added)
    finish_reason: str = "stop"


def _dumped(value: Any) -> str:
    return json.dumps(stored_json(value), ensure_ascii=False)


def _columns(turn: TurnRecord) -> tuple[object, ...]:
    """A turn row's values after the session's id and position, but for the digest."""
    return (
        _dumped(turn.messages),
        stored_text(turn.user_message),
        stored_text(turn.reply),
        turn.prompt_tokens,
        turn.completion_tokens,
        turn.duration_ms,
        _dumped(turn.run),
    )


async def record(
    db: Queryable,
    held: Claim,
    turn: TurnRecord,
    *,
    until: datetime | None = None,
) -> None:
    """Append the turn and free the session in one statement, if the claim is still this
    turn's (`ClaimLost`, nothing written, when another turn took it) and the database runs the
    statement before `until` (its own clock; None: no deadline). A record that runs later keeps
    the turn, whole, as the session's progress instead (built by the statement from the
    record's own values: `chat.journal.kept_of` reads it) and frees the session
    (`RecordLate`)."""
    async with translated(PersistFailed, "session turn"):
        in_time = await db.fetchval(
            _RECORD,
            held.session_id,
            held.token,
            *_columns(turn),
            until,
            None if until is None else turn.new_count,
            turn.digest,
            turn.finish_reason,
        )
    if in_time is None:
        raise ClaimLost()
    if not in_time:
        raise RecordLate()


async def keep_progress(db: Queryable, held: Claim, progress: dict[str, Any]) -> None:
    """Keep the turn so far on its session (`ClaimLost` when another turn took it)."""
    async with translated(PersistFailed, "session progress"):
        kept = await db.fetchval(_PROGRESS, held.session_id, held.token, _dumped(progress))
    if kept is None:
        raise ClaimLost()


async def record_cut(db: Queryable, held: Claim, turn: TurnRecord) -> None:
    """Record a turn that never reached its record (its progress, closed) and clear the
    progress, keeping the claim for the turn that found it."""
    async with translated(PersistFailed, "session cut turn"):
        position = await db.fetchval(
            _CUT, held.session_id, held.token, *_columns(turn), turn.digest
        )
    if position is None:
        raise ClaimLost()
