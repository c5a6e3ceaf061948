"""Everything memory does before the greeting, inside one deadline.

The job's pool is normally warm: its connection was opened and checked while livekit prewarmed
the process (`callmemory.prewarm`), so the first step only makes sure that connection is still
alive (one that died meanwhile is replaced now, at room open). Then:

- inbound callers (SIP, browser rooms) are on the line when the room opens: once the worker
  joined and found them, one statement takes the settings snapshot, picks the caller's identity
  under the bound key and, when reading is on, recalls that person (`memory.store.open_call`):
  one round trip before the greeting;
- an outbound call reads its settings at room open, while it dials; recall (one round trip)
  runs when the callee answers (`lifecycle.recall`), since nothing can be said to anyone earlier.

Once the caller is on the line, the greeting waits for memory at most the budget: one deadline,
measured from that moment, covers whatever of those steps is still running. Past the deadline
the call greets without memory and one code names the step that was late: `pool_over_budget`
(the connection), `settings_over_budget` (the settings were not read yet) or
`recall_over_budget` (the settings were read, recall was not: the statement sends the settings
as soon as it read them). An agent with no binding yet offers the code's identity key first
(`lifecycle.snapshot`). Late work is abandoned to the background (`infra.deadline`), never
awaited on the call path.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import time
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any, Protocol, TypedDict

import asyncpg
import structlog
from livekit import rtc
from livekit.agents import AutoSubscribe, JobContext

from infra.deadline import ABANDONED, Abandoned, Deadline, Late, within
from lifecycle.identity import offer
from lifecycle.recall import RECALL_CALLS, RecallOutcome, missed, over_budget, without
from lifecycle.snapshot import bound_snapshot, offered_key
from lifecycle.start import CallStart, start_call
from memory.contract import MemoryFailure
from memory.settings import CallSettings, CodeDefaults
from memory.store import Opened
from memory.store._opening import SettingsSeen
from sip.caller import Caller
from sip.job_metadata import JobMetadata, parse_job_metadata
from sip.line import connect_caller

log = structlog.get_logger(__name__)

STEPS = ("pool", "settings", "recall")


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
        """A live connection (opened, or replaced when it died); raises `MemoryFailure`."""

    async def call_settings(self, agent_id: str, code: CodeDefaults) -> CallSettings:
        """The agent's settings; the same statement checks schema and capability (a failed
        check shows, as a code, at recall). Raises `MemoryFailure` when unreadable."""

    async def open_call(
        self,
        agent_id: str,
        code: CodeDefaults,
        offered: Mapping[str, str],
        calls: int,
        on_settings: SettingsSeen,
        *,
        reader: str | None = None,
    ) -> Opened:
        """Settings, the identity under the bound key and recall in one statement
        (`memory.store.open_call`), which also records the read by `reader` (the job).
        Raises `MemoryFailure` when it fails."""

    async def prepare_recall(self) -> None:
        """Recall's statement prepared now, so the recall itself is one round trip later
        (an outbound call, while it dials). Raises `MemoryFailure` when it fails."""


class Opening:
    """The pre-greeting memory work of one call, begun at room open.

    `outbound`: the job dials its callee (settings now, recall once they answer); `reader`:
    who the read's record names (the LiveKit job).
    """

    def __init__(
        self,
        backend: Backend,
        agent_id: str,
        code: CodeDefaults,
        *,
        budget_seconds: float,
        holder: Abandoned = ABANDONED,
        outbound: bool = False,
        reader: str | None = None,
    ) -> None:
        self._backend = backend
        self._reader = reader
        self._agent_id = agent_id
        self._code = code
        self._budget = budget_seconds
        self._holder = holder
        self._outbound = outbound
        self._step = STEPS[0]
        self._seen: CallSettings | None = None  # the settings, as soon as the server read them
        self._work: asyncio.Future[Any] = asyncio.ensure_future(
            self._snapshot() if outbound else self._connect()
        )

    async def _connect(self) -> bool:
        try:
            await self._backend.connect()
        except MemoryFailure as failure:
            self._unavailable(failure)
            return False
        return True

    async def _snapshot(self) -> CallSettings | None:
        """An outbound call's settings, at room open."""
        if not await self._connect():
            return None
        self._step = "settings"
        first = functools.partial(self._backend.call_settings, self._agent_id, self._code)
        settings = await bound_snapshot(self._backend.pool, self._agent_id, self._code, first=first)
        if settings is not None:  # read: what is left is recall's
            self._saw(settings)
        with contextlib.suppress(MemoryFailure):  # recall then says what fails, as a code
            await self._backend.prepare_recall()  # off the call path: the callee is ringing
        return settings

    async def _open(self, offered: Mapping[str, str]) -> Opened | None:
        """An inbound call's settings, identity and recall: one statement."""
        if not await self._work:
            return None
        opened = await self._statement(offered)
        if opened is None:
            return None
        if await offered_key(self._backend.pool, self._agent_id, self._code, opened.settings):
            return await self._statement(offered)  # the first call of an agent bound in code
        return opened

    async def _statement(self, offered: Mapping[str, str]) -> Opened | None:
        self._step, self._seen = "settings", None
        try:
            return await self._backend.open_call(
                self._agent_id, self._code, offered, RECALL_CALLS, self._saw, reader=self._reader
            )
        except MemoryFailure as failure:
            self._unavailable(failure)
            return None

    def _saw(self, settings: CallSettings) -> None:
        self._step, self._seen = "recall", settings

    def _unavailable(self, failure: MemoryFailure) -> None:
        log.warning("call.settings_unavailable", agent_id=self._agent_id, error_code=failure.code)

    async def on_the_line(
        self,
        caller: Caller | None,
        metadata: JobMetadata,
        *,
        started_at: datetime,
        run_id: str,
        at: float | None = None,
    ) -> CallStart:
        """The call's start, the work still running waited for until the deadline at most.

        `at` is when the caller was on the line (`time.monotonic()`, default now).
        """
        deadline = Deadline.after(self._budget, start=time.monotonic() if at is None else at)
        offered = offer(caller, metadata)  # who the caller can be, decided once
        begin = functools.partial(
            start_call,
            self._agent_id,
            on_the_line=(caller, offered),
            deadline=deadline,
            started_at=started_at,
            run_id=run_id,
        )
        opening = None if self._outbound else self._open(offered.user_ids())
        work = self._work if opening is None else asyncio.ensure_future(opening)
        try:
            found = await within(deadline, work, step="opening", holder=self._holder)
        except Late:
            return self._late(begin)
        if self._outbound:
            return begin(settings=found)  # recall runs when the callee answered, now
        return _with_recall(begin, found)

    def _late(self, begin: Callable[..., CallStart]) -> CallStart:
        reason = over_budget(self._step)
        if self._step == "recall" and self._seen is not None:
            start: CallStart = begin(settings=self._seen)
            if start.plan.read and start.plan.user_id is not None:
                return dataclasses.replace(start, recalled=missed(reason))
            return start
        without(reason)
        late: CallStart = begin(settings=None, late=reason)
        return late

    async def join(
        self,
        ctx: JobContext,
        *,
        started_at: datetime,
        connect: ConnectOptions | None = None,
        metadata: JobMetadata | None = None,
    ) -> CallStart | None:
        """Join the room, wait for (or dial) the caller, then decide the call's start.

        `connect`: the agent's options for `ctx.connect()`. A room the agent already joined
        itself (its own `ctx.connect(...)` before attach) is used as it is: livekit's connect
        does nothing the second time. None when nobody came on the line (an outbound dial
        failed and the job is ending). `metadata`: the job's, when already parsed.
        """
        if metadata is None:  # read once: the dial and the identity
            metadata = parse_job_metadata(ctx.job.metadata)
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


def _with_recall(begin: Callable[..., CallStart], opened: Opened | None) -> CallStart:
    """The call's start from the opening statement, its recall kept when the plan reads."""
    start: CallStart = begin(settings=None if opened is None else opened.settings)
    plan = start.plan
    if opened is None or not plan.read or plan.user_id is None:
        return start
    if opened.capability_error is not None:
        return dataclasses.replace(start, recalled=missed(opened.capability_error))
    if opened.recall is None:
        return start  # not read by the statement: recall runs on its own
    # the statement recalled the user id offered under the bound key, the one the plan takes
    # from the same offer (`lifecycle.identity.Offered`): nothing to reconcile
    return dataclasses.replace(start, recalled=RecallOutcome(opened.recall))
