"""Everything memory does before the greeting, inside one deadline.

The work starts with the job (room open) and runs while the worker joins the room and waits for
the caller: connect the job's pool, then snapshot the settings with the capability check in the
same statement (one round trip on the job's new connection instead of two: every round trip
before the greeting is paid again when the database is far; for an agent with no binding yet,
after offering the code's identity key: `lifecycle.snapshot`). Once the caller
is on the line, the greeting waits for memory at most the budget: one deadline, measured from
that moment, covers whatever of those steps is still running and then recall (inbound callers
are in the room when it opens; an outbound callee is on the line when they answer, and nothing
can be said to anyone earlier). Past the deadline the call greets without memory and one code
names the step that was late: `pool_over_budget`, `settings_over_budget` (and
`recall_over_budget`, from `lifecycle.recall`). Late work is
abandoned to the background (`infra.deadline`), never awaited on the call path.
"""

from __future__ import annotations

import asyncio
import functools
import time
from datetime import datetime
from typing import Protocol, TypedDict

import asyncpg
import structlog
from livekit import rtc
from livekit.agents import AutoSubscribe, JobContext

from infra.deadline import ABANDONED, Abandoned, Deadline, Late, within
from lifecycle.recall import over_budget, without
from lifecycle.snapshot import bound_snapshot
from lifecycle.start import CallStart, start_call
from memory.contract import MemoryFailure
from memory.settings import CallSettings, CodeDefaults
from sip.caller import Caller
from sip.job_metadata import JobMetadata, parse_job_metadata
from sip.line import connect_caller

log = structlog.get_logger(__name__)

STEPS = ("pool", "settings")


class ConnectOptions(TypedDict, total=False):
    """The keywords of livekit's `JobContext.connect`, passed on to it as they are."""

    encryption: rtc.E2EEOptions | None
    auto_subscribe: AutoSubscribe
    rtc_config: rtc.RtcConfiguration | None
    single_peer_connection: bool | None


class Backend(Protocol):
    """The job's database side: a pool that connects on demand, the checked settings read."""

    @property
    def pool(self) -> asyncpg.Pool: ...

    async def connect(self) -> None:
        """Open the pool's connections; raises `MemoryFailure` when the server refuses."""

    async def call_settings(self, agent_id: str, code: CodeDefaults) -> CallSettings:
        """The agent's settings; the same statement checks schema and capability (a failed
        check shows, as a code, at recall). Raises `MemoryFailure` when unreadable."""


class Opening:
    """The pre-greeting memory work of one call, begun at room open."""

    def __init__(
        self,
        backend: Backend,
        agent_id: str,
        code: CodeDefaults,
        *,
        budget_seconds: float,
        holder: Abandoned = ABANDONED,
    ) -> None:
        self._backend = backend
        self._agent_id = agent_id
        self._code = code
        self._budget = budget_seconds
        self._holder = holder
        self._step = STEPS[0]
        self._work = asyncio.ensure_future(self._prepare())

    async def _prepare(self) -> CallSettings | None:
        try:
            await self._backend.connect()
        except MemoryFailure as failure:
            log.warning(
                "call.settings_unavailable", agent_id=self._agent_id, error_code=failure.code
            )
            return None
        self._step = "settings"
        first = functools.partial(self._backend.call_settings, self._agent_id, self._code)
        return await bound_snapshot(self._backend.pool, self._agent_id, self._code, first=first)

    async def on_the_line(
        self,
        caller: Caller | None,
        metadata: JobMetadata,
        *,
        started_at: datetime,
        run_id: str,
        at: float | None = None,
    ) -> CallStart:
        """The call's start, the settings step waited for until the deadline at most.

        `at` is when the caller was on the line (`time.monotonic()`, default now).
        """
        deadline = Deadline.after(self._budget, start=time.monotonic() if at is None else at)
        line = (caller, metadata)
        try:
            settings = await within(deadline, self._work, step="opening", holder=self._holder)
        except Late:
            reason = over_budget(self._step)
            without(reason)
            return start_call(
                self._agent_id,
                None,
                line,
                deadline=deadline,
                started_at=started_at,
                run_id=run_id,
                late=reason,
            )
        return start_call(
            self._agent_id, settings, line, deadline=deadline, started_at=started_at, run_id=run_id
        )

    async def join(
        self, ctx: JobContext, *, started_at: datetime, connect: ConnectOptions | None = None
    ) -> CallStart | None:
        """Join the room, wait for (or dial) the caller, then decide the call's start.

        `connect`: the agent's options for `ctx.connect()`. A room the agent already joined
        itself (its own `ctx.connect(...)` before attach) is used as it is: livekit's connect
        does nothing the second time. None when nobody came on the line (an outbound dial
        failed and the job is ending).
        """
        metadata = parse_job_metadata(ctx.job.metadata)  # read once: the dial and the identity
        try:
            await ctx.connect(**(connect or {}))
            caller = await connect_caller(ctx, metadata)
        except BaseException:
            self.abandon()
            raise
        if caller is None:
            self.abandon()
            return None
        return await self.on_the_line(caller, metadata, started_at=started_at, run_id=ctx.job.id)

    def abandon(self) -> None:
        """No caller (an outbound dial failed): the work goes on only until it is cancelled."""
        if not self._work.done():
            self._holder.hold(self._work, "opening")
