"""Thread restore benchmark: a connect run on a thread of 200 turns, against a bare `SELECT 1`
on the same pool, in one run.

Two threads are written through the real AG-UI wire (the local model server answers): one of
`--turns` turns (default 200), each a tool call, its result and an answer (800 messages); the
other the same and then a turn parked on a held tool (the restore also reads the decision).
Measured, interleaved (one of each in turn): `ChatTurns.restore` (the service: the settings
when the process has not seen the agent's key, the session and its turns in one statement, the
pending decision when there is one) and the whole connect run over HTTP (the request with no
new message → the last byte of `RUN_FINISHED`: `MESSAGES_SNAPSHOT` encoded by `ag-ui-protocol`).
The model server counts its requests: a restore must ask it nothing.

Usage: python -m bench.thread_restore_bench [--turns N] [--samples N]
Uses BENCH_DATABASE_URL when set, else a throwaway embedded Postgres.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp
import asyncpg
from livekit.agents import function_tool

from bench.memory_bench import HEADER, interleaved, row
from bench.serving import print_measured, serve
from callmemory.definition import define_agent
from chat import ChatConfig
from memory.config import MemoryConfig
from memory.settings import CodeDefaults
from testkit.model_server import ModelServer
from worker.catalog import Catalog
from worker.http.server.auth import parse_api_keys
from worker.http.web import create_app
from worker.http.wires.turns import CHAT_TURNS

KEY = "bench-restore-key-0123456789abcdef"
CUSTOMER = {"customerId": "crm/42"}
ANSWER = "Order A-1 shipped on Monday and should reach you by Thursday; anything else?"


@function_tool
async def lookup_order(order_id: str) -> str:
    """Look up an order.

    Args:
        order_id: the order number
    """
    return f"order {order_id}: shipped Monday, carrier DHL, tracking 00340434161094042557"


@function_tool
async def issue_refund(order_id: str) -> str:
    """Refund an order.

    Args:
        order_id: the order number
    """
    return f"refunded {order_id}"


AGENT = define_agent(
    name="desk",
    instructions="You help the shop's customers.",
    memory=CodeDefaults(identity_key="customerId"),
    tools=[lookup_order, issue_refund],
    interrupt_on=["issue_refund"],
)


def body(thread: str, run: str, text: str | None) -> dict[str, Any]:
    said = [] if text is None else [{"id": run, "role": "user", "content": text}]
    return {"threadId": thread, "runId": run, "messages": said, "forwardedProps": CUSTOMER}


async def write_thread(
    http: aiohttp.ClientSession, url: str, server: ModelServer, thread: str, turns: int
) -> None:
    for n in range(turns):
        server.call_tool("lookup_order", {"order_id": f"A-{n}"})
        server.answer_text(ANSWER)
        async with http.post(url, json=body(thread, f"r{n}", f"Where is order A-{n}?")) as r:
            text = await r.text()
            assert r.status == 200 and "RUN_FINISHED" in text, text


async def measure(pool: asyncpg.Pool, turns: int, samples: int = 300) -> list[str]:
    server = ModelServer()
    await server.start()
    keys = [{"name": "b", "key": KEY, "scopes": ["chat"]}]
    app = create_app(
        pool=pool,
        catalog=Catalog([AGENT]),
        api_keys=parse_api_keys(json.dumps(keys)),
        memory_config=MemoryConfig(base_url=server.url, api_key="k"),
        chat=ChatConfig(base_url=server.url, api_key="k", model="bench-model"),
    )
    runner, base = await serve(app)
    url = f"{base}/agui/desk"
    try:
        async with aiohttp.ClientSession(headers={"Authorization": f"Bearer {KEY}"}) as http:
            await write_thread(http, url, server, "plain", turns)
            await write_thread(http, url, server, "pending", turns)
            server.call_tool("issue_refund", {"order_id": "A-1"})
            async with http.post(url, json=body("pending", "park", "Refund A-1")) as r:
                assert '"interrupt"' in await r.text()
            asked = len(server.requests)
            turns_service = app[CHAT_TURNS]

            def connect(thread: str) -> Callable[[], Awaitable[object]]:
                async def run() -> object:
                    async with http.post(url, json=body(thread, "c", None)) as r:
                        return await r.read()

                return run

            probes: dict[str, Callable[[], Awaitable[object]]] = {
                "`SELECT 1` (baseline)": lambda: pool.fetchval("select 1"),
                f"restore, {turns} turns (service)": lambda: turns_service.restore(
                    "desk", "plain", CUSTOMER
                ),
                f"restore, {turns} turns + a pending decision (service)": lambda: (
                    turns_service.restore("desk", "pending", CUSTOMER)
                ),
                f"connect run over HTTP, {turns} turns": connect("plain"),
                f"connect run over HTTP, {turns} turns + pending": connect("pending"),
            }
            got = await interleaved(list(probes.values()), samples)
            assert len(server.requests) == asked, "a restore asked the model"
            async with http.post(url, json=body("plain", "c", None)) as r:
                size = len(await r.read())
    finally:
        await runner.cleanup()
        await server.stop()
    lines = [f"\nthreads of {turns} turns ({turns * 4} messages; the run's answer {size:,} bytes)"]
    return [*lines, HEADER, *(row(n, s, got[0]) for n, s in zip(probes, got, strict=True))]


async def main(turns: int, samples: int) -> None:
    async def run(pool: asyncpg.Pool, n: int) -> list[str]:
        return await measure(pool, n, samples)

    await print_measured("thread-restore-bench-", run, turns)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--turns", type=int, default=200, help="turns of each thread")
    parser.add_argument("--samples", type=int, default=300, help="samples of each measurement")
    args = parser.parse_args()
    asyncio.run(main(args.turns, args.samples))
