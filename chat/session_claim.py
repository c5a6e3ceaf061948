"""A turn's hold on its session in Postgres: opened with the settings read, fenced, recorded.

A turn on a kept session opens it in one statement: the agent's settings, the claim (the
session is created on first use) and, for a `session`, the thread kept so far. The claim is a
short lease (`busy_until`) the turn renews while it runs (`chat.session_lease`), and a fencing
token (`claim`, bumped by every claim): a second turn at once finds the lease running and is
refused (`SessionBusy`, 409); a turn whose lease lapsed (its process died, or the database did
not answer its renewal) is taken over by the next claim, and every later write of the old turn
names its token and changes nothing. The claim also reads the database's clock (so a turn can
name its deadline in it) and the progress a failed turn left (`chat.journal`); the turn's own
writes (its record, its progress, a cut turn) are `chat.turn_record`. Text a model wrote is
escaped for Postgres at this boundary (`memory.store.stored_json`) and read back exactly.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, ClassVar, Final

import structlog

from chat.customer import SessionKind, scope_user, session_customers, session_id, session_scope
from chat.held import DecisionPending
from infra.deadline import Deadline, Late, within
from memory.contract import CodedError, MemoryFailure, PersistFailed, Unavailable
from memory.settings import CallSettings, CodeDefaults
from memory.store import (
    Queryable,
    read_json,
    settings_store,
    translated,
)

log = structlog.get_logger(__name__)
RELEASE_SECONDS: Final = 1.0
"""How long freeing a claim a turn did not record may take; past it the lease frees it."""

_S = "stackbone_platform"
_LONE = re.compile("[\ud800-\udfff]")
_KEY_STILL = f"""(select identity_key from {_S}.memory_identity_bindings where agent_id = $1)
         is not distinct from $9::text"""
_CLAIMED = """claimed as (
  insert into {s}.chat_sessions as c
    (id, kind, agent_id, session_key, user_id, identities, customers, busy_until, claim)
  select $2, $3, $1, $4, $5, $6::jsonb, $7::text[], now() + make_interval(secs => $8), 1
   where {condition}
  on conflict (id) do update
    set busy_until = excluded.busy_until, claim = c.claim + 1,
        identities = excluded.identities, customers = excluded.customers
    where (c.busy_until is null or c.busy_until < now()) and c.pending_decision is null
  returning c.claim, c.turns, c.progress)"""
_KEPT = f"""kept as (
  select count(*) as n, coalesce(jsonb_agg(t.messages order by t.position), '[]') as messages
    from {_S}.chat_turns t
   where $10 and t.session_id = $2 and exists (select 1 from claimed))"""
_CLAIM = (
    "with "
    + _CLAIMED.format(s=_S, condition="true")
    + " select claim, progress, clock_timestamp() as server_now from claimed"
)
_OPEN = (
    f"with {_CLAIMED.format(s=_S, condition=_KEY_STILL)}, {_KEPT} "
    + settings_store.with_columns(
        "(select claim from claimed) as claim_token, (select turns from claimed) as claim_turns,"
        " (select n from kept) as kept_turns, (select messages from kept) as kept,"
        " (select progress from claimed) as claim_progress, clock_timestamp() as server_now"
    )
)
_PENDING = f"select pending_decision::text from {_S}.chat_sessions where id = $1"
_THREAD = f"select messages from {_S}.chat_turns where session_id = $1 order by position"
_RELEASE = f"update {_S}.chat_sessions set busy_until = null where id = $1 and claim = $2"
_RENEW = f"""update {_S}.chat_sessions set busy_until = now() + make_interval(secs => $3)
 where id = $1 and claim = $2 returning 1"""


class SessionBusy(CodedError):
    """Another turn is running on this session (409)."""

    code: ClassVar[str] = "session_busy"

    def __init__(self, message: str = "another turn is running on this session") -> None:
        field = "x-stackbone-session"
        super().__init__(f"{field}: {message}", field=field)


class ClaimLost(SessionBusy):
    """The turn's lease lapsed and another turn took the session: nothing of it is kept."""

    def __init__(self) -> None:
        super().__init__("this turn's claim lapsed and another turn took the session")


@dataclass(frozen=True, slots=True)
class SessionAddress:
    id: str
    kind: SessionKind
    agent_id: str
    key: str
    user_id: str | None
    identities: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Claim:
    """A turn's hold: the session, its fencing token, and when the claim was sent
    (`time.monotonic()`): the lease counts from there, never later than the database's.
    `server_at` is the database's clock when it made the claim, read back at `answered_at`
    (`time.monotonic()`), so a deadline of ours can be named in the database's time."""

    session_id: str
    token: int
    sent_at: float
    server_at: datetime | None = None
    answered_at: float = 0.0

    def server_time(self, moment: float) -> datetime | None:
        """The database's clock at our `moment` (`time.monotonic()`), never later than it
        is: the claim was made no later than its answer came back."""
        if self.server_at is None:
            return None
        return self.server_at + timedelta(seconds=moment - self.answered_at)


@dataclass(frozen=True, slots=True)
class OpenedTurn:
    """The settings a turn runs with, its claim (None: no session header) and the thread."""

    settings: CallSettings
    claim: Claim | None = None
    thread: list[dict[str, Any]] = field(default_factory=list)
    progress: dict[str, Any] | None = None  # a turn not yet recorded (`chat.journal`)


def address_of(
    kind: SessionKind,
    agent_id: str,
    key: str,
    identity_key: str | None,
    identities: Mapping[str, str],
) -> SessionAddress:
    """Where a turn's session lives: a pure function of the agent's key and the identities."""
    scope = session_scope(identity_key, identities)
    ident = session_id(kind, agent_id, key, scope)
    return SessionAddress(ident, kind, agent_id, key, scope_user(scope), dict(identities))


def _flat(kept: Any) -> list[dict[str, Any]]:
    """The kept thread as the model is sent it: exactly what was said, except a lone surrogate
    (which no UTF-8 request body can carry), sent as U+FFFD."""
    turns = json.loads(kept) if isinstance(kept, str) else kept
    decoded = (json.loads(turn) if isinstance(turn, str) else turn for turn in turns)
    return [_sendable(read_json(m)) for turn in decoded for m in turn]


def _sendable(value: Any) -> Any:
    if isinstance(value, str):
        return _LONE.sub("\ufffd", value)
    if isinstance(value, list):
        return [_sendable(v) for v in value]
    if isinstance(value, dict):
        return {k: _sendable(v) for k, v in value.items()}
    return value


async def open_turn(
    db: Queryable,
    address: SessionAddress,
    code: CodeDefaults,
    predicted_key: str | None,
    lease_seconds: float,
) -> tuple[OpenedTurn, str | None]:
    """Read the settings, claim the session and load its thread in one statement.

    `address` was derived with `predicted_key`; the claim happens only if the agent's bound
    identity key is still that. Returns the opened turn and the bound key; a turn whose key
    differed has no claim (derive the address again and `claim`). `SessionBusy` when held."""
    a = address
    sent = time.monotonic()
    async with translated(Unavailable, "session open"):
        row = await db.fetchrow(
            _OPEN, *_claim_arguments(a, lease_seconds), predicted_key, a.kind == "session"
        )
    assert row is not None
    bound = row["identity_key"]
    settings = settings_store.call_settings_of(row, code)
    if bound != predicted_key:
        return OpenedTurn(settings), bound
    if row["claim_token"] is None:
        raise await _refused(db, a.id)
    claim = Claim(a.id, row["claim_token"], sent, row["server_now"], time.monotonic())
    kept = _flat(row["kept"])
    if a.kind == "session" and row["kept_turns"] != row["claim_turns"]:
        # a turn recorded while this statement waited on its row: its snapshot missed it
        kept = await thread(db, a.id)
    return OpenedTurn(settings, claim, kept, _progress(row["claim_progress"])), bound


def _progress(value: Any) -> dict[str, Any] | None:
    if value is None:
        return None
    found = read_json(json.loads(value) if isinstance(value, str) else value)
    return dict(found)


def _claim_arguments(a: SessionAddress, lease_seconds: float) -> tuple[object, ...]:
    """The parameters `_OPEN` and `_CLAIM` share: the session's address and the lease."""
    return (
        a.agent_id,
        a.id,
        a.kind,
        a.key,
        a.user_id,
        json.dumps(a.identities, ensure_ascii=False),
        session_customers(a.identities),
        lease_seconds,
    )


async def claim(db: Queryable, address: SessionAddress, lease_seconds: float) -> Claim:
    """Hold the session for one turn (created on first use), or `SessionBusy`."""
    held, _ = await claim_turn(db, address, lease_seconds)
    return held


async def claim_turn(
    db: Queryable, address: SessionAddress, lease_seconds: float
) -> tuple[Claim, dict[str, Any] | None]:
    """`claim`, with the progress of a turn not yet recorded (`chat.journal`)."""
    a = address
    sent = time.monotonic()
    async with translated(Unavailable, "session claim"):
        row = await db.fetchrow(_CLAIM, *_claim_arguments(a, lease_seconds))
    if row is None:
        raise await _refused(db, a.id)
    held = Claim(a.id, row["claim"], sent, row["server_now"], time.monotonic())
    return held, _progress(row["progress"])


async def _refused(db: Queryable, session_id: str) -> SessionBusy | DecisionPending:
    """Why a claim was refused: a decision pending on the session, or another turn running
    (read only after a refused claim: ordinary turns never pay for it)."""
    async with translated(Unavailable, "session pending"):
        pending: str | None = await db.fetchval(_PENDING, session_id)
    return SessionBusy() if pending is None else DecisionPending(pending)


async def thread(db: Queryable, session_id: str) -> list[dict[str, Any]]:
    """Every message the session kept, oldest first."""
    async with translated(Unavailable, "session thread"):
        rows = await db.fetch(_THREAD, session_id)
    return _flat([r["messages"] for r in rows])


async def renew(db: Queryable, held: Claim, lease_seconds: float) -> bool:
    """Extend the lease; False when another turn took the session meanwhile."""
    async with translated(Unavailable, "session renew"):
        row = await db.fetchrow(_RENEW, held.session_id, held.token, lease_seconds)
    return row is not None


async def release(db: Queryable, held: Claim, within_seconds: float = RELEASE_SECONDS) -> None:
    """Free a claim the turn did not record (it failed). Best effort, waited for within
    `within_seconds`: past them the statement is left to land when the database answers (a
    retry then finds the session free, not busy until the lease ends); a database that fails
    leaves the claim to its lease's end, and the turn's own error stands (this never raises
    one of its own)."""
    try:
        freeing = _free(db, held)
        await within(Deadline.after(within_seconds), freeing, step="chat.release", let_finish=True)
    except (Late, MemoryFailure) as failure:
        code = "release_late" if isinstance(failure, Late) else failure.code
        log.warning("chat.release_failed", error_code=code)


async def _free(db: Queryable, held: Claim) -> None:
    async with translated(PersistFailed, "session release"):
        await db.execute(_RELEASE, held.session_id, held.token)


class HeldClaim:
    """A turn's claim while it is the turn's to give up (None once recorded or parked)."""

    def __init__(self, claim: Claim | None) -> None:
        self.claim = claim


@asynccontextmanager
async def holding(db: Queryable, held: Claim | None) -> AsyncIterator[HeldClaim]:
    """`held` for the turn's time; released at its end unless the turn set it to None (it
    recorded or parked, which frees the session itself)."""
    hold = HeldClaim(held)
    try:
        yield hold
    finally:
        if hold.claim is not None:
            await release(db, hold.claim)
