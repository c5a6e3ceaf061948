"""Chat sessions in Postgres: claim, thread, record, list, open, delete.

A turn on a kept session claims it with a lease (`busy_until`) in one statement: a second turn
at once finds it held and is refused (`SessionBusy`, 409) rather than interleaving the thread,
and a turn that crashed releases it when the lease ends. A failed turn releases its claim
within a second at most (`release`); a database that does not answer then leaves it to the
lease. The claim holds no transaction or
connection across the model requests. Recording the turn appends its messages and releases the
claim in one transaction.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar, Final

import structlog

from chat.identity import SessionKind
from infra.deadline import Deadline, Late, within
from memory.contract import MemoryFailure, PersistFailed, Unavailable
from memory.store import Queryable, translated

log = structlog.get_logger(__name__)
RELEASE_SECONDS: Final = 1.0
"""How long freeing a claim a turn did not record may take; past it the lease frees it."""

_S = "stackbone_platform"
MAX_LIST = 100

_CLAIM = f"""insert into {_S}.chat_sessions (id, kind, agent_id, session_key, user_id, busy_until)
values ($1, $2, $3, $4, $5, now() + make_interval(secs => $6))
on conflict (id) do update set busy_until = excluded.busy_until
  where {_S}.chat_sessions.busy_until is null or {_S}.chat_sessions.busy_until < now()
returning turns"""
_RELEASE = f"update {_S}.chat_sessions set busy_until = null where id = $1"
_THREAD = f"select messages from {_S}.chat_turns where session_id = $1 order by position"
_TURN = f"""insert into {_S}.chat_turns (session_id, position, messages, user_message, reply,
    prompt_tokens, completion_tokens, duration_ms)
select $1, s.turns, $2::jsonb, $3, $4, $5, $6, $7 from {_S}.chat_sessions s where s.id = $1"""
_DONE = f"""update {_S}.chat_sessions
   set turns = turns + 1, updated_at = now(), busy_until = null where id = $1"""
_LIST = f"""select id, kind, session_key, user_id, created_at, updated_at, turns
  from {_S}.chat_sessions where agent_id = $1 order by updated_at desc, id limit $2"""
_ONE = f"""select id, kind, session_key, user_id, created_at, updated_at, turns
  from {_S}.chat_sessions where agent_id = $1 and id = $2"""
_TURNS = f"""select position, user_message, reply, prompt_tokens, completion_tokens,
       duration_ms, created_at
  from {_S}.chat_turns where session_id = $1 order by position"""
_DELETE = f"delete from {_S}.chat_sessions where agent_id = $1 and id = $2"


class SessionBusy(Exception):
    """Another turn is running on this session (409)."""

    code: ClassVar[str] = "session_busy"

    def __init__(self) -> None:
        self.message = "x-stackbone-session: another turn is running on this session"
        self.field: str | None = "x-stackbone-session"
        super().__init__(self.message)


class SessionNotFound(LookupError):
    code: ClassVar[str] = "session_not_found"

    def __init__(self) -> None:
        self.message = "sessionId: no session with this id for this agent"
        self.field: str | None = "sessionId"
        super().__init__(self.message)


def check_session_id(value: str) -> str:
    """A session id as the operator routes hand it out (32 hex digits), else `SessionNotFound`."""
    if len(value) != 32 or not all(c in "0123456789abcdef" for c in value):
        raise SessionNotFound()
    return value


@dataclass(frozen=True, slots=True)
class SessionAddress:
    id: str
    kind: SessionKind
    agent_id: str
    key: str
    user_id: str | None


@dataclass(frozen=True, slots=True)
class TurnRecord:
    messages: list[dict[str, Any]]  # what the thread keeps of this turn
    user_message: str
    reply: str
    prompt_tokens: int
    completion_tokens: int
    duration_ms: float


@dataclass(frozen=True, slots=True)
class SessionRow:
    id: str
    kind: str
    key: str
    user_id: str | None
    created_at: datetime
    updated_at: datetime
    turns: int


@dataclass(frozen=True, slots=True)
class TurnRow:
    position: int
    user_message: str
    reply: str
    prompt_tokens: int
    completion_tokens: int
    duration_ms: float
    created_at: datetime


async def claim(db: Queryable, address: SessionAddress, lease_seconds: float) -> None:
    """Hold the session for one turn (created on first use), or `SessionBusy`."""
    a = address
    async with translated(PersistFailed, "session claim"):
        row = await db.fetchrow(_CLAIM, a.id, a.kind, a.agent_id, a.key, a.user_id, lease_seconds)
    if row is None:
        raise SessionBusy()


async def release(db: Queryable, session_id: str, within_seconds: float = RELEASE_SECONDS) -> None:
    """Free a claim the turn did not record (it failed). Best effort, within `within_seconds`:
    a database that fails or does not answer leaves the claim to its lease's end, and the
    turn's own error stands (this never raises one of its own)."""
    try:
        await within(Deadline.after(within_seconds), _free(db, session_id), step="chat.release")
    except (Late, MemoryFailure) as failure:
        code = "release_late" if isinstance(failure, Late) else failure.code
        log.warning("chat.release_failed", error_code=code)


async def _free(db: Queryable, session_id: str) -> None:
    async with translated(PersistFailed, "session release"):
        await db.execute(_RELEASE, session_id)


async def thread(db: Queryable, session_id: str) -> list[dict[str, Any]]:
    """Every message the session kept, oldest first."""
    async with translated(Unavailable, "session thread"):
        rows = await db.fetch(_THREAD, session_id)
    return [m for r in rows for m in json.loads(r["messages"])]


async def record(db: Any, session_id: str, turn: TurnRecord) -> None:
    """Append the turn and release the claim, in one transaction (`db`: a pool)."""
    messages = json.dumps(turn.messages, ensure_ascii=False)
    async with (
        translated(PersistFailed, "session turn"),
        db.acquire() as conn,
        conn.transaction(),
    ):
        await conn.execute(
            _TURN,
            session_id,
            messages,
            turn.user_message,
            turn.reply,
            turn.prompt_tokens,
            turn.completion_tokens,
            turn.duration_ms,
        )
        await conn.execute(_DONE, session_id)


def _session(r: Any) -> SessionRow:
    return SessionRow(
        r["id"],
        r["kind"],
        r["session_key"],
        r["user_id"],
        r["created_at"],
        r["updated_at"],
        r["turns"],
    )


async def list_sessions(db: Queryable, agent_id: str, limit: int = MAX_LIST) -> list[SessionRow]:
    """An agent's sessions, most recently used first."""
    async with translated(Unavailable, "session list"):
        rows = await db.fetch(_LIST, agent_id, limit)
    return [_session(r) for r in rows]


async def open_session(
    db: Queryable, agent_id: str, session_id: str
) -> tuple[SessionRow, list[TurnRow]]:
    async with translated(Unavailable, "session read"):
        row = await db.fetchrow(_ONE, agent_id, session_id)
        if row is None:
            raise SessionNotFound()
        turns = await db.fetch(_TURNS, session_id)
    return _session(row), [TurnRow(**dict(t)) for t in turns]


async def delete_session(db: Queryable, agent_id: str, session_id: str) -> None:
    async with translated(PersistFailed, "session delete"):
        status = await db.execute(_DELETE, agent_id, session_id)
    if status.endswith(" 0"):
        raise SessionNotFound()
