"""A session's thread read back for a client that reconnects: what it was told, and the decision
its last turn waits on, if any. Nothing is claimed and no model is asked.

The thread is every recorded turn's messages (Chat Completions' shape: user, assistant with its
tool calls, tool results), each message with an id derived from its place (`{position}.{index}`,
the same on every read, and the same once a parked turn is recorded in the order it was told).
A turn parked on a held call is not recorded yet: its messages (what the client sent, then the
assistant messages and tool results up to the held call) come from the pending decision's row,
under the position the turn will take. A session nobody opened yet is an empty thread.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from chat.decisions import DecisionRow, read_decision
from chat.session_claim import SessionAddress
from memory.contract import Unavailable
from memory.store import Queryable, read_json, translated

Message = dict[str, Any]
_S = "stackbone_platform"
_THREAD = f"""select s.pending_decision::text as pending,
       coalesce((select jsonb_agg(t.messages order by t.position)
                   from {_S}.chat_turns t where t.session_id = s.id), '[]') as kept
  from {_S}.chat_sessions s
 where s.id = $1 and s.agent_id = $2 and s.kind = 'session'"""


@dataclass(frozen=True, slots=True)
class ThreadMessage:
    id: str
    message: Message


@dataclass(frozen=True, slots=True)
class Restored:
    """A session's thread (oldest first) and the decision it waits on (None: none)."""

    messages: list[ThreadMessage]
    pending: DecisionRow | None = None


def _loaded(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


def numbered(turns: list[list[Message]], first: int = 0) -> list[ThreadMessage]:
    """Each turn's messages with their ids (`{position}.{index}`)."""
    return [
        ThreadMessage(f"{position}.{index}", message)
        for position, turn in enumerate(turns, start=first)
        for index, message in enumerate(turn)
    ]


async def restore_thread(db: Queryable, address: SessionAddress) -> Restored:
    """The thread of the session at `address` and its pending decision (two reads when one
    waits, else one)."""
    async with translated(Unavailable, "session restore"):
        row = await db.fetchrow(_THREAD, address.id, address.agent_id)
    if row is None:
        return Restored([])
    kept = [[read_json(m) for m in _loaded(turn)] for turn in _loaded(row["kept"])]
    messages = numbered(kept)
    if row["pending"] is None:
        return Restored(messages)
    pending = await read_decision(db, row["pending"])
    parked = [*pending.turn.new, *pending.progress.added]
    return Restored([*messages, *numbered([parked], first=len(kept))], pending)
