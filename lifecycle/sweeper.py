"""The sweeper: saves, once, what the journal of a dead job heard (`lifecycle.recovery`).

It runs in a worker's main process (`worker.sweeping`), in every worker of a deployment; one
sweep every `interval_seconds`. A sweep claims silent journals under a lease in Postgres
(`UPDATE ... FOR UPDATE SKIP LOCKED ... RETURNING`, `memory.store`), so exactly one sweeper
acts on each; the lease outlasts one save. Before its model call the sweeper marks the journal
as started under its own lease: if it dies after that, the next sweeper records
`save_interrupted` instead of calling the model again. A save that writes the call's memory
deletes the journal in the same statement; a failed one drops it (recorded, never retried).
Each action is counted (`caller_memory_journal_swept`) and logged with codes, never text.
"""

from __future__ import annotations

import asyncio
import os
import socket
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

import asyncpg
import structlog

from lifecycle.metrics import count_sweep_failure, count_swept
from lifecycle.outcome import Outcome
from lifecycle.recovery import Act, LostPart, decide, what_to_save
from lifecycle.saving import VOICE
from memory.api import Memory
from memory.contract import InvalidRequest, requests
from memory.store import (
    ClaimedJournal,
    claim_silent,
    drop_claimed,
    journal_entries,
    record_interrupted,
    start_swept_save,
)

log = structlog.get_logger(__name__)

BATCH = 20
"""Journals one sweep claims at most."""


@dataclass(frozen=True, slots=True)
class SweepConfig:
    lost_after_seconds: float
    drop_after_seconds: float
    interval_seconds: float
    lease_seconds: float
    """Above one save's whole bound: a sweeper that died mid-save is replaced after it."""


def holder_name() -> str:
    """This process's name on the leases it takes (host, pid and a random part)."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


class Sweeper:
    """One process's sweeper; `known(agent_id)` says whether this worker serves the agent."""

    def __init__(
        self,
        pool: asyncpg.Pool,
        memory: Memory,
        known: Callable[[str], bool],
        config: SweepConfig,
        *,
        holder: str | None = None,
    ) -> None:
        self._pool = pool
        self._memory = memory
        self._known = known
        self._config = config
        self.holder = holder or holder_name()

    async def run(self) -> None:
        """Sweep now and then every interval, for the life of the process."""
        while True:
            try:
                await self.sweep()
            except Exception as exc:  # the claim failed (database down): try next interval
                count_sweep_failure(type(exc).__name__)
                log.warning("journal.sweep_failed", error_type=type(exc).__name__)
            await asyncio.sleep(self._config.interval_seconds)

    async def sweep(self) -> list[str]:
        """Claim the silent journals and act on each; the actions taken, in order."""
        config = self._config
        claimed = await claim_silent(
            self._pool,
            self.holder,
            silent_for=config.lost_after_seconds,
            lease_seconds=config.lease_seconds,
            limit=BATCH,
        )
        actions = []
        for journal in claimed:
            try:
                actions.append(await self._act(journal))
            except Exception as exc:  # the lease ends; the next sweep sees it again
                count_sweep_failure(type(exc).__name__)
                log.warning("journal.act_failed", error_type=type(exc).__name__)
        return actions

    async def _act(self, journal: ClaimedJournal) -> str:
        header = journal.header
        decision = decide(
            save_started=journal.save_started,
            agent_known=self._known(header.agent_id),
            identity_valid=_valid_user(header.user_id),
            silent_seconds=journal.silent_seconds,
            drop_after=self._config.drop_after_seconds,
        )
        if decision.act is Act.WAIT:
            return "waited"
        if decision.act is Act.DROP:
            done = await drop_claimed(self._pool, journal.id, self.holder)
            return self._done(done, "dropped", decision.reason)
        if decision.act is Act.INTERRUPTED:
            outcome = Outcome.SAVE_INTERRUPTED.value
            done = await record_interrupted(self._pool, journal.id, self.holder, outcome)
            return self._done(done, "interrupted", decision.reason)
        return await self._save(journal)

    async def _save(self, journal: ClaimedJournal) -> str:
        silent = self._config.lost_after_seconds
        if not await start_swept_save(self._pool, journal.id, self.holder, silent_for=silent):
            return "lost_lease"
        header = journal.header
        part = what_to_save(
            await journal_entries(self._pool, journal.id), journal.covered, header.consolidate
        )
        if part is None:
            done = await drop_claimed(self._pool, journal.id, self.holder)
            return self._done(done, "dropped", "nothing_heard")
        error = await self._saved(journal, part)
        if error is None:
            return self._done(True, "saved", None)
        await drop_claimed(self._pool, journal.id, self.holder)  # recorded, never retried
        return self._done(True, "failed", error)

    async def _saved(self, journal: ClaimedJournal, part: LostPart) -> str | None:
        header = journal.header
        call = {
            "started_at": header.started_at,
            "duration_seconds": _seconds(header.started_at, journal.heartbeat_at),
            "outcome": Outcome.JOB_LOST.value,
            "run_id": header.job_id,
            "channel": VOICE,  # a journal is a voice call's
            "job_id": header.job_id,
        }
        scope = header.agent_id, header.user_id
        if part.turn is None:
            added = await self._memory.add(
                part.messages,
                *scope,
                call,
                header.instructions,
                brief=header.brief,
                time_zone=header.time_zone,
            )
            return None if added.error is None else added.error.code
        passed = await self._memory.consolidate(
            part.messages,
            *scope,
            turn=part.turn,
            final=True,
            call={**call, "first_turn": part.first_turn},
            instructions=header.instructions,
            brief=header.brief,
            time_zone=header.time_zone,
        )
        return None if passed.error is None else passed.error.code

    def _done(self, done: bool, action: str, reason: str | None) -> str:
        if not done:
            return "gone"  # erased or taken meanwhile: nothing to count
        count_swept(action, reason)
        log.info("journal.swept", action=action, reason=reason)
        return action


def _valid_user(user_id: str) -> bool:
    try:
        requests.user_id(user_id)
    except InvalidRequest:
        return False
    return True


def _seconds(start: datetime, end: datetime) -> float:
    return max(0.0, (end - start).total_seconds())
