"""A turn whose client was told it failed, and the official clients' own retries (issue 41).

The `openai` and `anthropic` clients retry a 5xx (and a 408, 409, 429) twice by default with the
same body. Here each runs a session turn whose model calls a tool and then answers, with every
Postgres process frozen for `STALL` seconds at one point of the turn: at the end of the tool (the
tool ran, nothing of the turn is kept yet) or while the model writes its answer (so the turn's
record meets the frozen database). The first attempt answers an error at the database deadline;
the clients retry; once Postgres is back the turn must be kept once, each tool must have run
once and the model must not have been asked again for what it already answered. A streamed turn
cannot be retried by the client once its stream opened: its caller sends the same request again
by hand, as an app does when a stream ends in an error.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import anthropic
import asyncpg
import openai
import pytest
from aiohttp.test_utils import TestClient, TestServer
from livekit.agents import function_tool

from callmemory import CodeDefaults, define_agent
from chat import ChatConfig
from infra.database import PoolTimeouts, close_pool, create_pool
from memory.config import MemoryConfig
from testkit.fake_devices import wait_until
from testkit.model_server import ModelServer
from tests.chat.conftest import CHAT_KEY, CONVERSATION_MODEL, KEYS
from tests.faults.server import FaultServer
from tests.web_clients import Client
from worker.catalog import Catalog
from worker.http.server.auth import parse_api_keys
from worker.http.web import create_app

DEADLINE = 0.5  # the web process's database deadline
STALL = 1.5  # how long Postgres stays frozen: past one attempt, within the clients' retries
SESSION = "retried-1"
IDENTITIES = json.dumps({"customerId": "crm/7"})
RAN: list[str] = []  # each run of `place_order`, in order
AFTER_TOOL: list[Callable[[], None]] = []  # what `place_order` does last (a test's stall)


@function_tool
async def place_order(item: str) -> str:
    """Place an order for the customer.

    Args:
        item: what to order
    """
    RAN.append(item)
    for then in AFTER_TOOL:
        then()
    return f"ordered {item}"


SHOP = define_agent(
    name="shop",
    instructions="You take orders.",
    memory=CodeDefaults(read=True, save=True, identity_key="customerId", instructions="Keep it."),
    tools=[place_order],
)


@pytest.fixture
async def client(
    fault_db: str, model_server: ModelServer, fault_server: FaultServer
) -> AsyncIterator[Client]:
    RAN.clear()
    AFTER_TOOL.clear()
    pool = await create_pool(fault_db, min_size=1, max_size=8, timeouts=PoolTimeouts())
    app = create_app(
        pool=pool,
        catalog=Catalog([SHOP]),
        api_keys=parse_api_keys(json.dumps(KEYS)),
        memory_config=MemoryConfig(base_url=model_server.url, api_key="k"),
        chat=ChatConfig(base_url=model_server.url, api_key="k", model=CONVERSATION_MODEL),
        database_deadline_seconds=DEADLINE,
    )
    test_client: Client = TestClient(TestServer(app))
    await test_client.start_server()
    yield test_client
    if fault_server.stalled:
        fault_server.resume()
    await test_client.close()
    await close_pool(pool, 2.0)


def _stall_for(fault_server: FaultServer) -> Callable[[], None]:
    """Freeze Postgres now and thaw it `STALL` seconds later."""

    def stall() -> None:
        fault_server.stall()
        asyncio.get_running_loop().call_later(STALL, fault_server.resume)

    return stall


async def _ask(wire: str, client: Client, stream: bool) -> str:
    """One turn through the wire's official client at its default retries: the reply."""
    base = str(client.make_url("")).rstrip("/")
    headers = {"x-stackbone-session": SESSION, "x-stackbone-identities": IDENTITIES}
    words: Any = [{"role": "user", "content": "Order tea and keep it in mind"}]
    if wire == "openai":
        async with openai.AsyncOpenAI(base_url=f"{base}/v1", api_key=CHAT_KEY) as sdk:
            if not stream:
                done = await sdk.chat.completions.create(
                    model="shop", messages=words, extra_headers=headers
                )
                return done.choices[0].message.content or ""
            chunks = await sdk.chat.completions.create(
                model="shop", messages=words, extra_headers=headers, stream=True
            )
            return "".join([c.choices[0].delta.content or "" async for c in chunks if c.choices])
    async with anthropic.AsyncAnthropic(base_url=base, api_key=CHAT_KEY) as sdk:
        if not stream:
            message = await sdk.messages.create(
                model="shop", max_tokens=200, messages=words, extra_headers=headers
            )
            return "".join(b.text for b in message.content if b.type == "text")
        events = await sdk.messages.create(
            model="shop", max_tokens=200, messages=words, extra_headers=headers, stream=True
        )
        texts: list[str] = []
        async for event in events:
            if event.type == "content_block_delta" and event.delta.type == "text_delta":
                texts.append(event.delta.text)
        return "".join(texts)


async def _turn(wire: str, client: Client, stream: bool, fault_server: FaultServer) -> str:
    """The turn as its caller sees it in the end: a turn answered `x-should-retry: false`, or
    whose stream ended in an error, is sent again once, by hand, after Postgres is back."""
    try:
        return await _ask(wire, client, stream)
    except (openai.APIError, anthropic.APIError) as failure:
        said = getattr(failure, "response", None)
        final = said is not None and said.headers.get("x-should-retry") == "false"
        if not (stream or final):
            raise  # the client retried what it could
    await wait_until(lambda: not fault_server.stalled, within=STALL + 5)
    return await _ask(wire, client, stream)


async def _kept(fault_db: str) -> list[asyncpg.Record]:
    conn = await asyncpg.connect(fault_db)
    try:
        return await conn.fetch(
            "select t.user_message, t.reply from stackbone_platform.chat_turns t"
            " join stackbone_platform.chat_sessions s on s.id = t.session_id"
            " where s.session_key = $1 order by t.position",
            SESSION,
        )
    finally:
        await conn.close()


def _asked(model_server: ModelServer) -> tuple[int, int]:
    """(conversation requests, extraction requests) the model server received."""
    talk = sum(1 for r in model_server.requests if r.get("model") == CONVERSATION_MODEL)
    return talk, len(model_server.requests) - talk


CASES = [  # (tool, where Postgres freezes)
    ("place_order", "tool"),  # at the end of the tool: it ran, nothing of the turn is kept
    ("place_order", "record"),  # while the model writes its answer: the record meets it
    ("memory_save", "record"),
]


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
@pytest.mark.parametrize("wire", ["openai", "anthropic"])
@pytest.mark.parametrize(("tool", "point"), CASES, ids=[f"{t}-at-{p}" for t, p in CASES])
async def test_a_turn_frozen_and_retried_is_kept_once_and_runs_its_tool_once(  # noqa: PLR0917
    client: Client,
    fault_db: str,
    fault_server: FaultServer,
    model_server: ModelServer,
    wire: str,
    stream: bool,
    tool: str,
    point: str,
) -> None:
    stall = _stall_for(fault_server)
    if tool == "place_order":
        model_server.call_tool("place_order", {"item": "tea"})
    else:
        model_server.call_tool("memory_save", {"content": "I like tea"})
        model_server.answer([{"op": "add", "content": "Likes tea."}])  # the extraction
    if point == "tool":
        AFTER_TOOL.append(stall)
    model_server.answer_text(
        "Done: tea is on its way.", on_request=stall if point == "record" else None
    )
    model_server.answer_text("Done (asked again).")  # only if the model is asked again

    try:
        reply = await _turn(wire, client, stream, fault_server)
    except (openai.APIError, anthropic.APIError) as failure:
        reply = f"failed: {type(failure).__name__}"

    await wait_until(lambda: not fault_server.stalled, within=STALL + 5)
    kept = await _kept(fault_db)
    talk, extraction = _asked(model_server)
    print(
        f"\n{wire} {'streamed' if stream else 'plain'} {tool} frozen at {point}: "
        f"conversation requests {talk}, extraction requests {extraction}, "
        f"tool runs {len(RAN) if tool == 'place_order' else extraction}, kept turns {len(kept)}"
        f", reply {reply!r}"
    )
    assert reply == "Done: tea is on its way."
    assert [r["reply"] for r in kept] == ["Done: tea is on its way."]
    assert talk == 2  # the call, then the answer: never asked again for either
    if tool == "place_order":
        assert RAN == ["tea"]
        assert extraction == 0
    else:
        assert extraction == 1  # memory_save's one model call: the memory write ran once
