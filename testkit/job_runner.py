"""`worker.agent`'s entrypoint under livekit's own job runner, with no LiveKit server.

The server is the production one (`worker.agent.build_server`), switched to the THREAD
executor and run unregistered, the way livekit's console runs it. Jobs are fake jobs on
livekit's mock room. The only substitution is the session factory: fake models and audio I/O
(`tests.voice`) instead of the OpenAI ones and RoomIO's WebRTC tracks. RoomIO itself still runs
on the mock room: it links the caller and reacts to their disconnect.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import asyncpg
from livekit.agents import (
    DEFAULT_API_CONNECT_OPTIONS,
    Agent,
    AgentServer,
    AgentSession,
    APIConnectionError,
    APIConnectOptions,
    JobContext,
    JobExecutorType,
    get_job_context,
    llm,
)
from livekit.agents.job import JobAcceptArguments, RunningJobInfo
from livekit.protocol import agent, models

from testkit.fake_devices import BUSY_MACHINE_SECONDS, FakeCallIO, fake_session, wait_until, wire
from testkit.fake_models import FakeLLM, FakeLLMStream, FakeSTT, LLMCall
from testkit.mock_room import MockRoom
from worker.agent import build_server

AGENT = "support"
GREETING = "Hello, how can I help?"
FAIL = "<fail>"
"""A scripted reply that makes the fake LLM fail with a non-retryable provider error."""
TOOL = "<tool>"


def tool_call(name: str, **arguments: str) -> str:
    """A scripted reply that is a call of the agent's tool `name` instead of words."""
    return f"{TOOL}{name} {json.dumps(arguments)}"


class FailingStream(FakeLLMStream):
    async def _run(self) -> None:
        if self._reply == FAIL:
            raise APIConnectionError("scripted provider failure", retryable=False)
        if self._reply.startswith(TOOL):
            name, arguments = self._reply.removeprefix(TOOL).split(" ", 1)
            call = llm.FunctionToolCall(name=name, arguments=arguments, call_id=f"call_{name}")
            delta = llm.ChoiceDelta(role="assistant", tool_calls=[call])
            self._event_ch.send_nowait(llm.ChatChunk(id="tool-call", delta=delta))
            return
        await super()._run()


class ScriptedLLM(FakeLLM):
    """The fake LLM, where a `FAIL` reply is a provider error and a `tool_call` a tool call.

    `tools` holds the names of the tools each request offered, in request order.
    """

    def __init__(self, replies: list[str], *, word_delay: float) -> None:
        super().__init__(replies, word_delay=word_delay)
        self.tools: list[list[str]] = []

    def chat(
        self,
        *,
        chat_ctx: llm.ChatContext,
        tools: list[llm.Tool] | None = None,
        conn_options: APIConnectOptions = DEFAULT_API_CONNECT_OPTIONS,
        **_: Any,
    ) -> llm.LLMStream:
        self.calls.append(LLMCall(chat_ctx=chat_ctx.copy()))
        self.tools.append([t.id for t in tools or []])
        reply = self._replies.pop(0) if self._replies else self.default_reply
        return FailingStream(
            self, chat_ctx=chat_ctx, tools=tools or [], conn_options=conn_options, reply=reply
        )


@dataclass
class FakeCallSide:
    """The session factory handed to the entrypoint: fake models, fake devices, real session.

    It runs inside the job (its thread and loop) and keeps what the test needs to reach in:
    the session, its devices, the job context and the job's loop.
    """

    room: MockRoom
    replies: tuple[str, ...] = ()
    llm_word_delay: float = 0.0
    built_at: float | None = None
    session: AgentSession[None] | None = None
    io: FakeCallIO | None = None
    ctx: JobContext | None = None
    llm: ScriptedLLM | None = None
    stt: FakeSTT | None = None
    speech: bool = False
    """The caller speaks through a fake STT (turns end on its end of speech), not manual turns."""
    options: dict[str, Any] = field(default_factory=dict)
    """The session options the agent's code asked for (its own models replaced by fakes)."""
    closes: list[str] = field(default_factory=list)
    """The session's close reasons, in order."""

    def __call__(self, *_: Any, **options: Any) -> AgentSession[Any]:
        """Called as the worker's factory (with its models), the front desk's (with nothing)
        or in place of `AgentSession(...)` (with the agent's options: its preemptive
        generation is kept, its models are replaced)."""
        self.llm = ScriptedLLM([GREETING, *self.replies], word_delay=self.llm_word_delay)
        self.options = options
        self.stt = FakeSTT() if self.speech else None
        preemptive = options.get("turn_handling", {}).get("preemptive_generation", {})
        session = fake_session(
            llm_model=self.llm, stt_model=self.stt, preemptive=preemptive.get("enabled", False)
        )
        self.io = wire(session, mic=True)  # a mic, so RoomIO opens no track of its own
        self.ctx = get_job_context()
        self.room.loop = asyncio.get_running_loop()
        self.session = session
        self.built_at = time.monotonic()
        session.on("close", lambda ev: self.closes.append(ev.reason.value))
        return session

    async def fake_agent_llm(self, within: float = BUSY_MACHINE_SECONDS) -> None:
        """Once the session runs, its agent's own LLM (set on the `Agent`) is the fake one.

        livekit's public `Agent.update_options` swaps it on the running agent; an agent with
        no greeting of its own has made no request yet.
        """
        await wait_until(lambda: self._agent() is not None, within=within)
        agent = self._agent()
        assert agent is not None
        self.in_job(agent.update_options, llm=self.llm)
        await wait_until(lambda: agent.llm is self.llm, within=within)

    def _agent(self) -> Agent | None:
        try:
            return self.session.current_agent if self.session is not None else None
        except RuntimeError:  # livekit: the session runs no agent yet
            return None

    async def say(self, text: str) -> None:
        """The caller says `text` (interim words, final transcript, end of speech)."""
        assert self.stt is not None and self.room.loop is not None, "a speaking side"
        said = asyncio.run_coroutine_threadsafe(self.stt.say_user(text), self.room.loop)
        await asyncio.wrap_future(said)

    def in_job(self, fn: Any, *args: Any, **kwargs: Any) -> None:
        """Call `fn` on the job's loop (livekit objects belong to it)."""
        self.room.call_in_job(lambda: fn(*args, **kwargs))

    async def greeted(self, within: float = BUSY_MACHINE_SECONDS) -> None:
        """The greeting played out and is in the session's history: livekit commits it on its
        own loop after the playout ends, so a caller's turn sent before that would land first."""
        await wait_until(
            lambda: self.io is not None and self.io.speaker.segments != [] and self._said(),
            within=within,
        )

    def _said(self) -> bool:
        """Whether an agent's message is in the session's history."""
        if self.session is None:
            return False
        items = self.session.history.items
        return any(item.type == "message" and item.role == "assistant" for item in items)


@asynccontextmanager
async def job_server(
    side: FakeCallSide,
    save_timeout: float,
    *,
    idle_processes: int = 0,
    metrics_port: int | None = None,
) -> AsyncIterator[AgentServer]:
    """The worker's server with the THREAD executor, unregistered, in dev mode.

    `idle_processes`: job runners kept warm (production keeps one per CPU; dev mode none).
    `metrics_port`: livekit's Prometheus endpoint (one process: no multiprocess directory).
    """
    server = build_server(AGENT, save_timeout, side, metrics_port=metrics_port)
    async with serving(server, idle_processes) as server:
        yield server


@asynccontextmanager
async def serving(server: AgentServer, idle_processes: int = 0) -> AsyncIterator[AgentServer]:
    """Any agent server, THREAD executor, unregistered, dev mode, until the block ends."""
    server.update_options(
        job_executor_type=JobExecutorType.THREAD, num_idle_processes=idle_processes
    )
    started = asyncio.Event()
    server.once("worker_started", started.set)
    running = asyncio.create_task(server.run(devmode=True, unregistered=True))
    await asyncio.wait_for(started.wait(), 10)
    try:
        yield server
    finally:
        await server.aclose()
        await running


async def dispatch(server: AgentServer, metadata: str = "", *, agent_name: str = AGENT) -> None:
    """Start one fake job, with the dispatch metadata LiveKit's server would set.

    `simulate_job(room, fake_job=True)` is this with empty metadata; in livekit-agents 1.8.9 it
    takes no metadata, so a job that needs some is launched the same way with it. `agent_name`:
    the agent the dispatch names (another than `AGENT` launches the job even without metadata).
    """
    if not metadata and agent_name == AGENT:
        await server.simulate_job("call-room", fake_job=True)
        return
    job = agent.Job(
        id="mock-job-with-metadata",
        room=models.Room(sid="RM_call", name="call-room"),
        type=agent.JobType.JT_ROOM,
        metadata=metadata,
        agent_name=agent_name,
    )
    info = RunningJobInfo(
        worker_id=server.id,
        accept_arguments=JobAcceptArguments(identity="fake-agent", name="", metadata=""),
        job=job,
        url="",
        token="",
        fake_job=True,
    )
    await server._proc_pool.launch_job(info)


async def job_ended(server: AgentServer, within: float = 15.0) -> None:
    await wait_until(lambda: not server.active_jobs, within=within)


async def call_records(pool: asyncpg.Pool) -> list[asyncpg.Record]:
    return list(
        await pool.fetch(
            "select user_id, outcome, run_id, duration_seconds"
            " from stackbone_platform.memory_calls order by seq"
        )
    )
