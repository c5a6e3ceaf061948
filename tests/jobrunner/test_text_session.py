"""A LiveKit text session (livekit's text mode: text input on `lk.chat`, no audio) attached with
`CallerMemory`, under livekit's job runner (THREAD executor, mock room) against the test
database and the local model server: the memory tools bound each turn, no voice lifecycle."""

from __future__ import annotations

import asyncio
import functools
import json
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import asyncpg
import pytest
from livekit import rtc
from livekit.agents import Agent, AgentServer, AgentSession, JobContext, llm
from livekit.agents.voice.room_io import RoomOptions

from callmemory import CallerMemory, ReservedToolName, TextMemory
from examples import web_chat
from memory.api import Memory
from memory.settings import CodeDefaults
from testkit.fake_devices import wait_until
from testkit.job_runner import ScriptedLLM, serving, tool_call
from testkit.mock_room import STANDARD, MockRoom, participant
from testkit.model_server import ModelServer
from tests.memory.helpers import add_op, stored

AGENT = "text-desk"
USER = "crm/person_42"
SECRET_FACT = "Keeps a spare key under the blue flowerpot."
TEXT_ONLY = RoomOptions(audio_input=False, audio_output=False)


@dataclass
class TextSide:
    """The session factory the entrypoint calls: a real AgentSession on the scripted LLM, with
    no STT, TTS or VAD (text mode needs none)."""

    room: MockRoom
    replies: list[str] = field(default_factory=list)
    llm: ScriptedLLM | None = None
    session: AgentSession[None] | None = None
    text: TextMemory | None = None

    def __call__(self) -> AgentSession[None]:
        self.llm = ScriptedLLM(self.replies, word_delay=0.0)
        self.room.loop = asyncio.get_running_loop()
        self.session = AgentSession(
            llm=self.llm,
            vad=None,
            turn_handling={"turn_detection": "manual"},
            aec_warmup_duration=None,
            user_away_timeout=None,
        )
        return self.session

    def requests(self) -> int:
        return 0 if self.llm is None else len(self.llm.calls)


async def entrypoint(ctx: JobContext, side: TextSide, memory: CallerMemory) -> None:
    session = side()
    agent = Agent(instructions="You answer customers in a web chat.")
    started = await memory.start(ctx, session, agent=agent, room=ctx.room, room_options=TEXT_ONLY)
    assert isinstance(started, TextMemory)
    side.text = started


@asynccontextmanager
async def text_desk(side: TextSide, defaults: CodeDefaults) -> AsyncIterator[AgentServer]:
    memory = CallerMemory(AGENT, defaults)
    server = AgentServer(shutdown_process_timeout=10)
    server.rtc_session(functools.partial(entrypoint, side=side, memory=memory), agent_name=AGENT)
    async with serving(server) as running:
        await running.simulate_job("chat-room", fake_job=True)
        await wait_until(lambda: side.text is not None, within=10)
        yield running


async def turn(
    room: MockRoom, side: TextSide, who: rtc.RemoteParticipant, text: str, requests: int = 1
) -> None:
    """`who` writes `text`; wait for the turn's `requests` model requests (tool calls, reply)."""
    fake = side.llm
    assert fake is not None
    before = len(fake.calls)
    room.send_text(who, text)
    await wait_until(lambda: len(fake.calls) >= before + requests, within=10)
    await asyncio.sleep(0.1)


def tool_outputs(request: llm.ChatContext) -> list[str]:
    return [i.output for i in request.items if isinstance(i, llm.FunctionCallOutput)]


async def override(pool: asyncpg.Pool, read: bool | None, save: bool | None) -> None:
    await override_agent(pool, AGENT, read=read, save=save)


async def override_agent(
    pool: asyncpg.Pool, agent: str, *, read: bool | None, save: bool | None
) -> None:
    await pool.execute(
        "insert into stackbone_platform.memory_agent_overrides (agent_id, read, save)"
        " values ($1, $2, $3) on conflict (agent_id) do update set read = $2, save = $3",
        agent,
        read,
        save,
    )


def customer(attributes: dict[str, str] | None = None) -> rtc.RemoteParticipant:
    return participant(
        "web-user", STANDARD, {"customerId": USER} if attributes is None else attributes
    )


async def test_each_turn_offers_the_tools_of_the_settings_table(
    job_env: None, room: MockRoom, pool: asyncpg.Pool, model_server: ModelServer
) -> None:
    side = TextSide(room)
    who = customer()
    room.join(who)
    async with text_desk(side, CodeDefaults(read=True, save=True, identity_key="customerId")):
        assert side.requests() == 0  # nothing before the first message: no greeting, no recall
        rows = [(True, True), (False, True), (False, False), (True, False)]
        for read, save in rows:
            await override(pool, read, save)  # the settings are resolved again each turn
            await turn(room, side, who, "Hello")
        room.leave(who, rtc.DisconnectReason.CLIENT_INITIATED)
    assert side.llm is not None
    assert side.llm.tools == [["memory_read", "memory_save"], ["memory_save"], [], ["memory_read"]]
    # no voice lifecycle: no recall, no save at close, no extraction request
    assert model_server.requests == []
    assert await pool.fetchval("select count(*) from stackbone_platform.memory_calls") == 0


async def test_memory_read_is_bound_to_the_agent_and_customer(
    job_env: None, room: MockRoom, memory: Memory, model_server: ModelServer
) -> None:
    model_server.answer([add_op(SECRET_FACT)], "Talked about keys.")
    assert (await memory.add("call", AGENT, USER)).error is None
    model_server.answer([add_op("Someone else's fact.")], "Other.")
    assert (await memory.add("call", AGENT, "crm/other")).error is None
    model_server.answer([add_op("Another agent's fact.")], "Other agent.")
    assert (await memory.add("call", "other-agent", USER)).error is None
    side = TextSide(room, [tool_call("memory_read", agentId="other-agent", userId="crm/other")])
    side.replies.append("You keep a spare key under the flowerpot.")
    who = customer()
    room.join(who)
    async with text_desk(side, CodeDefaults(read=True, save=False, identity_key="customerId")):
        await turn(room, side, who, "Where is my key?", requests=2)
        room.leave(who, rtc.DisconnectReason.CLIENT_INITIATED)
    assert side.llm is not None and len(side.llm.calls) == 2
    (output,) = tool_outputs(side.llm.calls[1].chat_ctx)
    result = json.loads(output)
    assert result["facts"] == [SECRET_FACT]
    assert [c["summary"] for c in result["recentCalls"]] == ["Talked about keys."]


async def test_save_only_saves_for_the_bound_customer_and_shows_nothing_stored(
    job_env: None, room: MockRoom, memory: Memory, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    model_server.answer([add_op(SECRET_FACT)], "Earlier call.")
    assert (await memory.add("call", AGENT, USER)).error is None
    save = tool_call("memory_save", content="I prefer email.", userId="crm/other")
    side = TextSide(room, [tool_call("memory_read"), save, "Noted."])
    model_server.answer([add_op("Prefers email.")], "Asked to be emailed.")  # the extraction
    who = customer()
    room.join(who)
    async with text_desk(side, CodeDefaults(read=False, save=True, identity_key="customerId")):
        await turn(room, side, who, "Email me please", requests=3)
        room.leave(who, rtc.DisconnectReason.CLIENT_INITIATED)
    fake = side.llm
    assert fake is not None and len(fake.calls) == 3
    assert fake.tools[0] == ["memory_save"]
    unoffered, saved = tool_outputs(fake.calls[2].chat_ctx)
    assert unoffered.startswith("Unknown function: memory_read")  # livekit's: never ran
    assert json.loads(saved) == {"saved": True}
    for request in fake.calls:
        assert SECRET_FACT not in json.dumps(request.chat_ctx.to_dict())
    facts = [f["content"] for f in (await stored(pool, AGENT, USER))["facts"]]
    assert facts == [SECRET_FACT, "Prefers email."]
    assert (await stored(pool, AGENT, "crm/other"))["facts"] == []
    recalled = (await memory.recall(AGENT, USER)).data
    assert recalled is not None
    source = recalled.facts[1].source  # where the save came from: this text session's job
    assert source.channel == "livekit-text" and source.call_id is None
    assert source.writer.agent == AGENT and isinstance(source.writer.job, str)
    assert "I prefer email." in json.dumps(model_server.requests[-1])


@pytest.mark.parametrize(
    ("attributes", "reason"),
    [
        ({"email": "ada@example.com"}, "identity_missing"),
        ({"customerId": "x" * 501}, "identity_value_too_long"),
        ({f"field{i}": "v" for i in range(33)}, "identities_too_many"),
    ],
)
async def test_without_a_customer_no_tools_and_a_reason_code(
    job_env: None,
    room: MockRoom,
    caplog: pytest.LogCaptureFixture,
    attributes: dict[str, str],
    reason: str,
) -> None:
    caplog.set_level(logging.INFO)
    side = TextSide(room, ["Hello there."])
    who = customer(attributes)
    room.join(who)
    async with text_desk(side, CodeDefaults(read=True, save=True, identity_key="customerId")):
        await turn(room, side, who, "Hi")
        room.leave(who, rtc.DisconnectReason.CLIENT_INITIATED)
    assert side.llm is not None and side.llm.tools == [[]]
    assert side.text is not None and side.text.binding.reason == reason
    logged = [r for r in caplog.records if r.getMessage() == "text.turn_tools"]
    assert logged and reason in repr(vars(logged[-1]))
    assert "ada@example.com" not in caplog.text and "x" * 501 not in caplog.text


@llm.function_tool
async def memory_read() -> str:
    """The agent's own tool named like a memory tool."""
    return "mine"


@llm.function_tool(name="memory_save")
async def my_save(content: str) -> str:
    """Another one, renamed."""
    return "mine"


@pytest.mark.parametrize(("tool", "name"), [(memory_read, "memory_read"), (my_save, "memory_save")])
@pytest.mark.parametrize("text", [True, False])
async def test_an_agent_declaring_a_memory_tool_fails_at_attach(
    tool: llm.FunctionTool[..., Any], name: str, text: bool
) -> None:
    memory = CallerMemory(AGENT, CodeDefaults(read=True, save=True, identity_key="customerId"))
    agent = Agent(instructions="x", tools=[tool])
    ctx: Any = None  # refused before the job is touched
    attach = memory.attach_text if text else memory.attach
    with pytest.raises(ReservedToolName, match=f"the tool name {name} is reserved"):
        await attach(ctx, AgentSession(), agent)
    with pytest.raises(ReservedToolName, match=name):  # on the session, the same
        await attach(ctx, AgentSession(tools=[tool]), Agent(instructions="x"))


async def test_the_example_web_chat_keeps_its_own_tool_beside_the_memory_tools(
    job_env: None, room: MockRoom, pool: asyncpg.Pool
) -> None:
    side = TextSide(room, [tool_call("order_status", order="A-17"), "It shipped.", "Bye."])
    server = AgentServer(shutdown_process_timeout=10)
    entry = functools.partial(web_chat.entrypoint, sessions=side)
    server.rtc_session(entry, agent_name="web-chat")
    who = customer()
    room.join(who)
    async with serving(server) as running:
        await running.simulate_job("chat-room", fake_job=True)
        await wait_until(lambda: room.text_handlers() != [], within=10)  # the session started
        await turn(room, side, who, "Where is my order A-17?", requests=2)
        await override_agent(pool, "web-chat", read=True, save=False)
        await turn(room, side, who, "Thanks")
        room.leave(who, rtc.DisconnectReason.CLIENT_INITIATED)
    assert side.llm is not None
    assert side.llm.tools[0] == ["order_status", "memory_read", "memory_save"]
    assert side.llm.tools[2] == ["order_status", "memory_read"]
    assert tool_outputs(side.llm.calls[1].chat_ctx) == ["Order A-17 left the warehouse yesterday."]
