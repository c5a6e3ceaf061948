"""Caller memory for any LiveKit agent: a declaration beside its server, one call to start.

    server = AgentServer()
    memory = CallerMemory.from_env("front-desk", defaults=PHONE_CALLERS, server=server)

    async def entrypoint(ctx: JobContext) -> None:
        session, agent = AgentSession(...), FrontDesk()
        await memory.start(ctx, session, agent=agent, room=ctx.room)  # was: session.start(...)

`memory.start` is `attach` followed by `session.start(...)` with the same keywords; call
`attach` yourself to do something between the two.

Text sessions: `memory.start(ctx, session, agent=agent, room=ctx.room,
room_options=RoomOptions(audio_input=False, audio_output=False))` (livekit's text mode) gets
the text behaviour instead (`callmemory.text`): the memory tools bound each turn, no recall
before a greeting and no save at close. `attach_text` is its first half.

Both reserve the tool names `memory_read` and `memory_save`: an agent (or session) that
declares either fails at attach with `ReservedToolName` naming it.

Turn mode: `define_agent(..., consolidate="turn")` (or `CallerMemory(..., consolidate="turn")`,
`CallerMemory.from_env(..., consolidate="turn")`) runs one memory pass after each agent reply
instead of one save at hang-up (`lifecycle.passes`). `memory.on("ops", fn)` registers a
listener of the `memory.ops` events of every call of this agent (`memory.ops`); each call
also publishes them on its room's data channel (topic `memory.ops`).

`attach` takes the process's warm pool (`callmemory.prewarm`; else it connects at room open),
joins the room, waits for the caller (or dials the callee when the job is an outbound call
requested through this service, its settings read meanwhile), then reads the settings, picks
the caller's identity and recalls in one statement inside the pre-greeting deadline
(`lifecycle.opening`) and puts the memory block into the agent's instructions; it wires the heard
transcript and every close path to the one save. It returns None only when nobody came on the
line (an outbound dial failed and the job is already ending): then do not start the session.
"""

from __future__ import annotations

import asyncio
import functools
import os
import sys
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import structlog
from livekit.agents import Agent, AgentServer, AgentSession, JobContext

from callmemory import environment
from callmemory.caller_search import forget_call, register_call
from callmemory.config import CallConfig, load_call_config
from callmemory.definition import AgentDefinition
from callmemory.held_in_calls import guard_held
from callmemory.prewarm import job_runtime
from callmemory.process import in_main_process, prepare_database, serves_calls
from callmemory.registration import register_worker_agent
from callmemory.runtime import Runtime
from callmemory.text import TextMemory, check_tools, is_text_session
from chat import ToolContext, bind_call, unbind_call
from infra import tracing
from lifecycle.call import CallSetup, MemoryCall, SessionAlreadyStarted, attach_memory, report_plan
from lifecycle.journal import JournalSetup
from lifecycle.metrics import MEMORY_READY_SECONDS
from lifecycle.opening import ConnectOptions, Opening
from lifecycle.pass_schedule import CONSOLIDATE_MODES, DEFAULT_CONSOLIDATE, Consolidate
from lifecycle.start import CallStart
from memory.config import ConfigError
from memory.contract import InvalidRequest, requests
from memory.ops import Listener, Listeners
from memory.settings import CodeDefaults
from sip.job_metadata import parse_job_metadata

PHONE_CALLERS = CodeDefaults(read=True, save=True, identity_key="phoneNumber")
"""The usual declaration: recall before the greeting, save at the end, callers known by number."""


@dataclass(frozen=True, slots=True)
class CallerMemory:
    """One agent's caller memory: its id (the memory scope) and its settings declared in code.

    `defaults` is the same declaration as a catalog entry's `memory` (`worker.catalog`): read,
    save, instructions, remember, forget, time_zone and the identity key; stored overrides win
    over it.
    `config` None: each job reads its configuration from its environment.
    `consolidate`: "call.ended" (one save at the end of the call) or "turn" (a pass after each
    agent reply, and the final one at the end).
    `held`: the agent's held tools (`interrupt_on`, from a definition): on the livekit agent
    they are swapped for stand-ins that refuse to run (`callmemory.held_in_calls`).
    """

    agent_id: str
    defaults: CodeDefaults = field(default_factory=CodeDefaults)
    config: CallConfig | None = None
    consolidate: Consolidate = DEFAULT_CONSOLIDATE
    held: frozenset[str] = frozenset()
    _listeners: list[Listener] = field(default_factory=list, compare=False, repr=False)

    def __post_init__(self) -> None:
        try:
            requests.agent_id(self.agent_id)
        except InvalidRequest as problem:
            raise ConfigError(str(problem)) from None
        if self.consolidate not in CONSOLIDATE_MODES:
            raise ConfigError(f"consolidate: must be one of {', '.join(CONSOLIDATE_MODES)}")

    def on(self, event: str, listener: Listener) -> None:
        """Call `listener` with every `memory.ops` event of this agent's calls (`event`: "ops").

        It runs in the call's job process; a raising listener never breaks the save, and a
        coroutine listener runs as a task the call waits for before its pool closes.
        """
        Listeners().on(event, listener)  # the same check of the event name, now
        self._listeners.append(listener)

    @classmethod
    def from_env(
        cls,
        agent_id: str | AgentDefinition,
        *,
        defaults: CodeDefaults | None = None,
        server: AgentServer | None = None,
        consolidate: Consolidate | None = None,
    ) -> CallerMemory:
        """Declare the agent at import; a malformed variable ends the process with one line.

        `agent_id` may be an agent definition (`callmemory.define_agent`): its name, memory
        defaults and `consolidate` are used. `consolidate` given here wins over the
        definition's ("call.ended" when neither says). In a worker's main process about to
        serve calls the agent is also recorded in the agent registry
        (`callmemory.registration`), so the web process lists it even when it cannot import
        this file.

        Every problem is printed as `configuration error: ...` on stderr and the process exits
        with status 2 (no traceback). `server`: its `shutdown_process_timeout` is set to
        `shutdown_process_timeout`, so a job outlives its save. In a worker's main process
        about to serve calls (`start`, `dev`, `console`, `connect`) without `DATABASE_URL`,
        the embedded Postgres is started now (`callmemory.process`). The environment is read
        again in each job process, which inherits it.
        """
        environment.load_env_local()  # `.env.local`, for this process and its job processes
        definition = agent_id if isinstance(agent_id, AgentDefinition) else None
        name = agent_id if isinstance(agent_id, str) else agent_id.name
        if definition is not None:
            defaults = defaults or definition.memory
        try:
            config = load_call_config()
            held = frozenset(definition.interrupt_on) if definition is not None else frozenset()
            mode = consolidate or (
                definition.consolidate if definition is not None else DEFAULT_CONSOLIDATE
            )
            memory = cls(name, defaults or CodeDefaults(), consolidate=mode, held=held)
            main = in_main_process()
            prepare_database(config, sys.argv, main_process=main)
        except ConfigError as exc:
            print(environment.report(exc), file=sys.stderr)
            raise SystemExit(2) from None
        if serves_calls(sys.argv, main_process=main):
            url = config.database_url or os.environ.get("DATABASE_URL")
            where = f"worker {os.path.basename(sys.argv[0]) or 'agent'}"
            if url:
                register_worker_agent(url, memory.agent_id, memory.defaults, definition, where)
        if server is not None:
            server.update_options(shutdown_process_timeout=config.shutdown_process_timeout)
        return memory

    @property
    def shutdown_process_timeout(self) -> float:
        """For `AgentServer(shutdown_process_timeout=...)`: a job outlives its save."""
        return self._config().shutdown_process_timeout

    async def start(
        self,
        ctx: JobContext,
        session: AgentSession[Any],
        *,
        agent: Agent,
        connect: ConnectOptions | None = None,
        **options: Any,
    ) -> MemoryCall | TextMemory | None:
        """`attach`, then `session.start(agent=agent, **options)` unless nobody answered.

        Room options without audio input (livekit's text mode) start a text session instead:
        `attach_text`, then `session.start` with the text input wrapped (`TextMemory`).
        """
        if is_text_session(options):
            text = await self.attach_text(ctx, session, agent, connect=connect)
            options["room_options"] = text.room_options(options["room_options"])
            await session.start(agent=agent, **options)
            return text
        call = await self.attach(ctx, session, agent, connect=connect)
        if call is not None:
            await session.start(agent=agent, **options)
        return call

    async def attach(
        self,
        ctx: JobContext,
        session: AgentSession[Any],
        agent: Agent,
        *,
        connect: ConnectOptions | None = None,
    ) -> MemoryCall | None:
        """Memory on this call, ready before `session.start()`; None when nobody answered.

        `connect`: the agent's `ctx.connect(...)` keywords (encryption, auto-subscribe, ...):
        attach joins the room with them. An agent that connects itself before attach keeps
        its own options; a `ctx.connect()` after attach does nothing (the room is joined).
        """
        if session.agent_state != "initializing":
            raise SessionAlreadyStarted()
        check_tools(agent, session)
        await guard_held(agent, self.held, self.agent_id)
        # every event of this call (call.*, memory.*) carries the room and job, never a number
        structlog.contextvars.bind_contextvars(room=ctx.job.room.name, job_id=ctx.job.id)
        config = self._config()  # given, or this call's one read of the environment
        tracing.configure(config.tracing_endpoint)
        runtime = job_runtime(ctx.proc, config)  # warm when livekit prewarmed the process
        started_at, opened_at = datetime.now(UTC), time.monotonic()
        start = await self._on_the_line(ctx, runtime, config, started_at, connect)
        if start is None:
            await runtime.aclose()  # an outbound dial failed: nothing was heard, nothing is saved
            return None
        report_plan(start.plan)
        # the call's tools read who they act for (`callmemory.tool_context()`): the session's
        # tasks, started after this, inherit it; anything else on the job's loop finds it there
        bind_call(ToolContext(self.agent_id, start.identity.user_id, "voice"))
        register_call(runtime.memory, start.plan)  # whom `memory_search()` searches
        ctx.add_shutdown_callback(_unbinding(asyncio.get_running_loop()))
        setup = CallSetup(
            start,
            config.save_timeout_seconds,
            self.consolidate,
            config.memory.timeout_seconds,
            JournalSetup(runtime.pool, config.journal_heartbeat_seconds)
            if config.journal
            else None,
        )
        for listener in self._listeners:
            runtime.memory.on("ops", listener)
        call = await attach_memory(
            session,
            agent,
            runtime.memory,
            setup,
            register_shutdown=ctx.add_shutdown_callback,
            room=ctx.room,
            after_save=functools.partial(_close, runtime),
            data_room=ctx.room,
        )
        MEMORY_READY_SECONDS.observe(time.monotonic() - opened_at)
        return call

    async def attach_text(
        self,
        ctx: JobContext,
        session: AgentSession[Any],
        agent: Agent,
        *,
        connect: ConnectOptions | None = None,
    ) -> TextMemory:
        """Memory on a text session, before `session.start()`: joins the room; start the
        session with `room_options=text.room_options(...)` so each turn binds its tools."""
        if session.agent_state != "initializing":
            raise SessionAlreadyStarted()
        check_tools(agent, session)
        await guard_held(agent, self.held, self.agent_id)
        structlog.contextvars.bind_contextvars(room=ctx.job.room.name, job_id=ctx.job.id)
        config = self._config()
        tracing.configure(config.tracing_endpoint)
        runtime = job_runtime(ctx.proc, config)
        for listener in self._listeners:
            runtime.memory.on("ops", listener)
        text = TextMemory(
            self.agent_id, self.defaults, runtime, session, job_id=ctx.job.id, room=ctx.room
        )
        ctx.add_shutdown_callback(text.aclose)
        await ctx.connect(**(connect or {}))
        return text

    async def _on_the_line(
        self,
        ctx: JobContext,
        runtime: Runtime,
        config: CallConfig,
        started_at: datetime,
        connect: ConnectOptions | None,
    ) -> CallStart | None:
        """Begin the memory work at room open, then join and wait for (or dial) the caller."""
        budget = config.recall_budget_seconds
        metadata = parse_job_metadata(ctx.job.metadata)  # read once: the dial and the identity
        outbound = metadata.outbound is not None
        opening = Opening(
            runtime,
            self.agent_id,
            self.defaults,
            budget_seconds=budget,
            outbound=outbound,
            reader=ctx.job.id,
        )
        try:
            return await opening.join(
                ctx, started_at=started_at, connect=connect, metadata=metadata
            )
        except BaseException:
            await runtime.aclose()
            raise

    def _config(self) -> CallConfig:
        return self.config if self.config is not None else load_call_config()


def _unbinding(loop: asyncio.AbstractEventLoop) -> Callable[[], Coroutine[None, None, None]]:
    """The job's shutdown callback: its call's tool context (and the caller `memory_search()`
    searches) is no longer its loop's."""

    async def unbind() -> None:
        unbind_call(loop)
        forget_call(loop)

    return unbind


async def _close(runtime: Runtime) -> None:
    """After the save: the job's pool, then its spans (a job process exits without exit hooks)."""
    await runtime.aclose()
    await tracing.flush()
