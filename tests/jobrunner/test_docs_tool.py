"""`search_docs` in an agent next to `CallerMemory`, under livekit's job runner (THREAD executor,
mock room), against the test database and the local embeddings server.

The tool's answer reaches the model; with an embeddings server slower than the tool's deadline
the model gets "unavailable" while the embedding request is still unanswered, so the reply is
never held by it.
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import asyncpg
import pytest
from livekit import rtc
from livekit.agents import Agent, AgentServer, AgentSession, JobContext, llm

from callmemory import PHONE_CALLERS, CallerMemory, search_docs
from memory.documents import Documents
from testkit.fake_devices import wait_until
from testkit.job_runner import FakeCallSide, serving, tool_call
from testkit.mock_room import SIP, MockRoom, participant
from testkit.model_server import ModelServer
from tests.documents.conftest import EMBEDDING_MODEL, docs_config

AGENT = "help-desk"
NUMBER = "+34600111333"
RETURNS = "Items can be returned within thirty days of delivery for a full refund."
ASK = "Can I still return my kettle?"
ANSWER = "Yes, within thirty days of delivery."
DEADLINE = 1.5  # an embedding and a search in time on a loaded machine too

memory = CallerMemory(AGENT, PHONE_CALLERS)


class HelpDesk(Agent):
    def __init__(self) -> None:
        super().__init__(
            instructions="You answer questions about the shop's policies.",
            tools=[search_docs("help-center", deadline_seconds=DEADLINE)],  # the one line
        )

    async def on_enter(self) -> None:
        self.session.generate_reply(instructions="Greet the caller.")


async def entrypoint(ctx: JobContext, sessions: FakeCallSide) -> None:
    session: AgentSession[None] = sessions()
    await memory.start(ctx, session, agent=HelpDesk(), room=ctx.room)


@asynccontextmanager
async def help_desk(side: FakeCallSide) -> AsyncIterator[AgentServer]:
    server = AgentServer(shutdown_process_timeout=10)
    server.rtc_session(functools.partial(entrypoint, sessions=side), agent_name=AGENT)
    async with serving(server) as running:
        yield running


@pytest.fixture
async def docs_env(
    job_env: None, monkeypatch: pytest.MonkeyPatch, pool: asyncpg.Pool, model_server: ModelServer
) -> None:
    monkeypatch.setenv("STACKBONE_MEMORY_EMBEDDING_MODEL", EMBEDDING_MODEL)
    docs = Documents(pool, docs_config(model_server))
    result = await docs.ingest(
        RETURNS.encode(), source="returns.md", content_type="text/markdown", namespace="help-center"
    )
    await docs.aclose()
    assert result.data is not None, result.error


def tool_outputs(request: llm.ChatContext) -> list[str]:
    return [i.output for i in request.items if isinstance(i, llm.FunctionCallOutput)]


async def call_and_ask(room: MockRoom, side: FakeCallSide, model_server: ModelServer) -> str:
    """One call: the caller asks, the model calls the tool, then answers; the tool's output."""
    caller = participant("sip_caller", SIP, {"sip.phoneNumber": NUMBER})
    room.join(caller)
    side.replies = (tool_call("search_docs", query="return kettle refund"), ANSWER)
    async with help_desk(side) as server:
        await server.simulate_job("call-room", fake_job=True)
        await side.greeted()
        fake = side.llm
        assert fake is not None and side.session is not None
        side.in_job(side.session.generate_reply, user_input=ASK)
        await wait_until(lambda: len(fake.calls) == 3, within=10)
        answered_when_replying = model_server.embeddings_answered
        room.leave(caller, rtc.DisconnectReason.CLIENT_INITIATED)
    assert fake.tools[1] == ["search_docs"]
    [output] = tool_outputs(fake.calls[2].chat_ctx)
    side.answered_when_replying = answered_when_replying  # type: ignore[attr-defined]
    return output


async def test_the_tool_answers_from_the_collection(
    docs_env: None, room: MockRoom, side: FakeCallSide, model_server: ModelServer
) -> None:
    output = await call_and_ask(room, side, model_server)
    assert RETURNS in output
    assert output.startswith("[") and "returns" in output  # score, then the document's title


async def test_a_slow_embeddings_server_never_holds_the_reply(
    docs_env: None,
    room: MockRoom,
    side: FakeCallSide,
    model_server: ModelServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    answered = model_server.embeddings_answered  # the seeding's
    model_server.embedding_delay = 4.0  # far past the tool's deadline (DEADLINE)
    output = await call_and_ask(room, side, model_server)
    assert output.startswith("Document search is unavailable")
    # the model was asked again while the embedding request was still unanswered
    assert side.answered_when_replying == answered  # type: ignore[attr-defined]
    assert len(model_server.embedding_requests) == 2  # the seed's, and the tool's
    late = [r for r in caplog.records if r.getMessage() == "documents.tool_late"]
    assert late and "kettle" not in repr(vars(late[0]))
