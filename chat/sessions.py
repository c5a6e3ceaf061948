"""Chat sessions in Postgres as operators see them: list, open, delete.

A turn's own hold on its session (the claim with its lease and fencing token, the thread, the
record) is `chat.session_claim`, the lease kept while it runs `chat.session_lease`. Replies and
user messages are read back through the store's escaping (`memory.store.read_text`), so a
NUL the model wrote comes back as it was.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar

from chat.paging import Cursor, page
from chat.session_claim import (
    RELEASE_SECONDS,
    SessionAddress,
    SessionBusy,
    claim,
    release,
    thread,
)
from chat.turn_record import TurnRecord, record
from memory.contract import CodedError, PersistFailed, Unavailable
from memory.store import Queryable, read_json, read_text, translated

__all__ = [  # the turn's side is re-exported from `chat.session_claim` and `chat.turn_record`
    "MAX_LIST",
    "RELEASE_SECONDS",
    "SessionAddress",
    "SessionBusy",
    "SessionNotFound",
    "SessionRow",
    "TurnRecord",
    "TurnRow",
    "check_session_id",
    "claim",
    "delete_session",
    "list_sessions",
    "open_session",
    "record",
    "release",
    "session_page",
    "thread",
]

_S = "stackbone_platform"
MAX_LIST = 100

_COLUMNS = "id, kind, session_key, user_id, identities, created_at, updated_at, turns"
_LIST = f"""select {_COLUMNS}
  from {_S}.chat_sessions where agent_id = $1{{customer}}{{after}}
 order by updated_at desc, id limit $2"""
_CUSTOMER = " and user_id = $3"
_AFTER = " and updated_at <= ${n} and (updated_at < ${n} or id > ${m})"
_ONE = f"""select {_COLUMNS}
  from {_S}.chat_sessions where agent_id = $1 and id = $2"""
_TURNS = f"""select position, user_message, reply, prompt_tokens, completion_tokens,
       duration_ms, created_at, run
  from {_S}.chat_turns where session_id = $1 order by position"""
_DELETE = f"delete from {_S}.chat_sessions where agent_id = $1 and id = $2"


class SessionNotFound(CodedError, LookupError):
    code: ClassVar[str] = "session_not_found"

    def __init__(self) -> None:
        super().__init__("sessionId: no session with this id for this agent", field="sessionId")


def check_session_id(value: str) -> str:
    """A session id as the operator routes hand it out (32 hex digits), else `SessionNotFound`."""
    if len(value) != 32 or not all(c in "0123456789abcdef" for c in value):
        raise SessionNotFound()
    return value


@dataclass(frozen=True, slots=True)
class SessionRow:
    id: str
    kind: str
    key: str
    user_id: str | None
    identities: dict[str, str]  # what the session's address was derived from
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
    run: list[dict[str, Any]]  # the run detail: each tool call (`chat.progress.run_json`)


def _session(r: Any) -> SessionRow:
    return SessionRow(
        r["id"],
        r["kind"],
        r["session_key"],
        r["user_id"],
        json.loads(r["identities"]),
        r["created_at"],
        r["updated_at"],
        r["turns"],
    )


async def list_sessions(db: Queryable, agent_id: str, limit: int = MAX_LIST) -> list[SessionRow]:
    """An agent's sessions, most recently used first."""
    rows, _ = await session_page(db, agent_id, limit)
    return rows


def _list_statement(customer: str | None, after: Cursor | None) -> tuple[str, list[object]]:
    """The listing's statement for the filters given (each variant keeps its index use: the
    cursor bounds the index scan, never a filter over the rows before it)."""
    args: list[object] = [] if customer is None else [customer]
    bound = ""
    if after is not None:
        n = 3 + len(args)
        bound = _AFTER.format(n=n, m=n + 1)
        args += [after.at, after.id]
    return _LIST.format(customer="" if customer is None else _CUSTOMER, after=bound), args


async def session_page(
    db: Queryable,
    agent_id: str,
    limit: int = MAX_LIST,
    *,
    customer: str | None = None,
    after: Cursor | None = None,
) -> tuple[list[SessionRow], str | None]:
    """A page of an agent's sessions, most recently used first (of one customer: its `userId`,
    byte for byte), from `after`; with the next page's cursor (None: the last page)."""
    statement, args = _list_statement(customer, after)
    async with translated(Unavailable, "session list"):
        rows = await db.fetch(statement, agent_id, limit + 1, *args)
    return page([_session(r) for r in rows], limit, lambda s: (s.updated_at, s.id))


async def open_session(
    db: Queryable, agent_id: str, session_id: str
) -> tuple[SessionRow, list[TurnRow]]:
    async with translated(Unavailable, "session read"):
        row = await db.fetchrow(_ONE, agent_id, session_id)
        if row is None:
            raise SessionNotFound()
        turns = await db.fetch(_TURNS, session_id)
    return _session(row), [_turn(t) for t in turns]


def _turn(r: Any) -> TurnRow:
    kept = dict(r)
    run = kept["run"]
    return TurnRow(
        **(
            kept
            | {
                "user_message": read_text(kept["user_message"]),
                "reply": read_text(kept["reply"]),
                "run": read_json(json.loads(run) if isinstance(run, str) else run),
            }
        )
    )


async def delete_session(db: Queryable, agent_id: str, session_id: str) -> None:
    async with translated(PersistFailed, "session delete"):
        status = await db.execute(_DELETE, agent_id, session_id)
    if status.endswith(" 0"):
        raise SessionNotFound()
