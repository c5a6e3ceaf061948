"""The call's journal: what it heard, kept in Postgres while the job runs, so that a job process
that dies before its save loses nothing the sweeper (`lifecycle.sweeper`) cannot save.

The transcript recorder hands over each heard message as it is committed (`on_heard`): the
message the save would send at that position, an interrupted reply's verified played part only.
Taking note is a list append; one task of the job writes the notes in batches (everything
pending, in one statement that also beats the heartbeat), and beats at least every
`heartbeat_seconds` while the call and its save run. No reply ever waits for it, and it waits
for a reply: before each write it gives way to a reply being generated (`give_way`, the call's
`lifecycle.reply_first`: 50 ms after the commit, then while the agent is thinking, at most
3 s), so its statement never competes with the reply it was woken with. A failing or slow
database delays only the journal, and each failure is counted
(`caller_memory_journal_failures`) and logged by its type, never its text. Notes the database
refused wait for the next batch, at most `MAX_PENDING` of them.

The save marks the journal before its model call (`save_starting`): from then on a sweeper
never makes a model call for this call. A save that writes the call's memory deletes the
journal in the same statement (`memory.store`); any other end of the save drops it (`finish`).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

import asyncpg
import structlog

from lifecycle.metrics import count_journal_failure
from lifecycle.save import SaveReport
from lifecycle.start import CallStart
from memory.store import (
    JournalEntry,
    JournalHeader,
    append_entries,
    drop_journal,
    mark_save_started,
    open_journal,
)
from transcript.models import Message

log = structlog.get_logger(__name__)

MAX_PENDING: Final = 1000
"""Heard messages held while the database refuses them; past it the oldest are let go."""
CLOSE_SECONDS: Final = 5.0
"""The most the save waits for the journal's mark or drop."""


@dataclass(frozen=True, slots=True)
class JournalSetup:
    """Where a call's journal is written and how often it beats."""

    pool: asyncpg.Pool
    heartbeat_seconds: float


class SaveGate(StrEnum):
    """What the journal says when the save is about to call the model."""

    GO = "go"  # marked (or no journal could be written): the save runs
    GONE = "gone"  # the journal went (a sweeper saved it, or the person was erased)
    UNSURE = "unsure"  # the mark could not be written: the journal is left to the sweeper


class CallJournal:
    """One call's journal writer; `heard` is the recorder's listener."""

    def __init__(
        self,
        pool: asyncpg.Pool,
        header: JournalHeader,
        *,
        heartbeat_seconds: float,
        give_way: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        self._pool = pool
        self._give_way = give_way
        self._header = header
        self._heartbeat = heartbeat_seconds
        self._pending: list[JournalEntry] = []
        self._wake = asyncio.Event()
        self._lock = asyncio.Lock()
        self._id: str | None = None
        self._gone = False
        self._task: asyncio.Task[None] | None = None
        self._context = contextvars.copy_context()

    @property
    def journal_id(self) -> str | None:
        return self._id

    def heard(self, position: int, message: Message) -> None:
        """Take note of a heard message; written by the journal's task, never here."""
        self._pending.append(JournalEntry(position, message["role"], message["content"]))
        if len(self._pending) > MAX_PENDING:
            del self._pending[0]
            count_journal_failure("overflow")
        self._wake.set()

    def start(self) -> None:
        """Start writing: the header, then batches and heartbeats until `finish`."""
        if self._task is None:
            self._task = asyncio.create_task(
                self._run(), name="call-journal", context=self._context
            )
            self._task.add_done_callback(_retrieve_failure)

    async def _run(self) -> None:
        while not self._gone:
            if self._give_way is not None:
                await self._give_way()  # a reply being generated goes first
            await self._write()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self._heartbeat)
            self._wake.clear()

    async def _write(self) -> None:
        async with self._lock:
            step = "open" if self._id is None else "append"
            try:
                if self._id is None:
                    self._id = await open_journal(self._pool, self._header)
                batch = list(self._pending)
                alive = await append_entries(self._pool, self._id, batch)
                del self._pending[: len(batch)]
                self._gone = not alive
            except Exception as exc:  # never the call's problem: counted, retried next beat
                _failed(step, exc)

    async def save_starting(self) -> SaveGate:
        """Mark the save as started, before its model call (bounded by `CLOSE_SECONDS`)."""
        try:
            async with asyncio.timeout(CLOSE_SECONDS), self._lock:
                if self._id is None or self._gone:
                    return SaveGate.GONE if self._gone else SaveGate.GO
                marked = await mark_save_started(self._pool, self._id)
        except Exception as exc:
            _failed("mark", exc)
            await self._stop()  # silent from now on: the sweeper finds it within its bound
            return SaveGate.UNSURE
        if not marked:
            self._gone = True
        return SaveGate.GO if marked else SaveGate.GONE

    async def finish(self, *, saved: bool) -> None:
        """The save ended: stop writing, and drop the journal unless the save's write did."""
        await self._stop()
        if saved or self._id is None or self._gone:
            return
        try:
            async with asyncio.timeout(CLOSE_SECONDS):
                await drop_journal(self._pool, self._id)
        except Exception as exc:
            _failed("drop", exc)
        self._gone = True

    async def _stop(self) -> None:
        task, self._task = self._task, None
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


def _failed(step: str, exc: BaseException) -> None:
    count_journal_failure(step)
    log.warning("call.journal_failed", step=step, error_type=type(exc).__name__)


def _retrieve_failure(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and (error := task.exception()) is not None:
        _failed("crashed", error)


def call_journal(
    setup: JournalSetup | None,
    start: CallStart,
    consolidate: str,
    give_way: Callable[[], Awaitable[None]] | None = None,
) -> CallJournal | None:
    """The call's journal, when it has one: only a call that saves, for a known person;
    `give_way` is awaited before each write (a reply being generated goes first)."""
    plan = start.plan
    if setup is None or not plan.save or plan.user_id is None:
        return None
    header = JournalHeader(
        job_id=start.run_id,
        agent_id=plan.agent_id,
        user_id=plan.user_id,
        instructions=plan.instructions,
        brief=plan.brief,
        consolidate=consolidate,
        started_at=start.started_at,
        time_zone=plan.time_zone,
    )
    return CallJournal(
        setup.pool, header, heartbeat_seconds=setup.heartbeat_seconds, give_way=give_way
    )


async def journalled(
    journal: CallJournal | None, save: Callable[[], Awaitable[SaveReport]]
) -> SaveReport:
    """Run the save behind the journal's mark, and end the journal with it."""
    if journal is None:
        return await save()
    gate = await journal.save_starting()
    if gate is SaveGate.UNSURE:  # the sweeper saves it, or records it interrupted
        return SaveReport("failed", "journal_unavailable")
    if gate is SaveGate.GONE:
        await journal.finish(saved=True)
        return SaveReport("skipped", "journal_gone")
    report = SaveReport("failed", "save_crashed")
    try:
        report = await save()
    finally:
        await journal.finish(saved=report.status == "saved")
    return report
