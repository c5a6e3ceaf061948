"""Where a turn starts on a session that kept progress (`chat.journal`): the same request again
goes on from what was kept; another request first records the kept turn as cut, then starts
from the thread with it, without the messages the cut turn already holds."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import asyncpg

from chat.journal import KeptTurn, cut_record, kept_of, request_digest, without_cut
from chat.session_claim import Claim, OpenedTurn
from chat.turn_record import record_cut
from chat.turn_request import SessionRef, TurnRequest
from chat.turn_result import Message

Bounded = Callable[[Awaitable[Any]], Awaitable[Any]]
"""A database step within the turn's deadline (`ChatTurns.bounded`)."""


@dataclass(frozen=True, slots=True)
class StartingPoint:
    thread: list[Message]
    new: list[Message]
    digest: str
    carried: KeptTurn | None = None
    """The kept progress of this same request, which the turn goes on from."""


async def starting_point(  # noqa: PLR0917
    pool: asyncpg.Pool,
    bounded: Bounded,
    held: Claim | None,
    session: SessionRef | None,
    opened: OpenedTurn,
    request: TurnRequest,
    new: list[Message],
) -> StartingPoint:
    """What the turn starts from: the kept progress it goes on from (the same request
    again), or, after a kept turn of another request (recorded first as cut and added to
    the thread), the new messages without those the cut turn already holds (a client that
    sends the failed message again with its next one)."""
    digest = request_digest(new, request.options, request.client_tools)
    kept = kept_of(opened.progress)
    if kept is None or held is None or session is None:
        return StartingPoint(opened.thread, new, digest)
    if kept.digest == digest:
        return StartingPoint(opened.thread, new, digest, kept)
    cut = cut_record(kept, session.kind == "session")
    if cut is None:
        return StartingPoint(opened.thread, new, digest)
    await bounded(record_cut(pool, held, cut))
    thread = [*opened.thread, *cut.messages]
    if request.reconcile is not None:
        new = request.reconcile(thread)
    new = without_cut(new, kept.new)
    return StartingPoint(thread, new, request_digest(new, request.options, request.client_tools))
