"""AG-UI wire benchmark: what the wire adds to one streamed run, against a bare aiohttp route
that relays a streamed model answer, served by the same app; and the time from a decision to
the continued turn's first text.

- in: the request leaves the client → the conversation model's request arrives at the model;
- out: the model's last chunk is handed to its transport → the client has read the whole run.

The floor (`/bench/relay`, added to the same app on the same server) forwards the client's
body to the model with a bare aiohttp client and relays the model's server-sent bytes as they
come. The AG-UI run adds the rest: `RunAgentInput` parsing, the agent's settings, the session
claim and thread (a `threadId` is always a session), the model client, each delta as AG-UI
events through the `ag-ui-protocol` encoder, and the record. The OpenAI wire's streamed session
turn is printed beside it. The model is the local model server in the same process; its deltas
come 5 ms apart, as a model writes them.

The resume row: a run parks on a held tool, then a run resuming it (approve) is sent; it times
the resume's request → its first `TEXT_MESSAGE_CONTENT` (the decision taken, the session
claimed, the held tool run, the model's first delta relayed).

Usage: python -m bench.agui_bench [--runs N]   (default 300 runs of each kind)
Uses BENCH_DATABASE_URL when set, else a throwaway embedded Postgres.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import aiohttp
import asyncpg
from aiohttp import web
from livekit.agents import function_tool

from bench.chat_wire_bench import Legs, legs_table
from bench.memory_bench import pct
from bench.serving import print_measured, serve
from callmemory import CodeDefaults, define_agent
from chat import ChatConfig
from memory.config import MemoryConfig
from testkit.model_server import ModelServer
from worker.catalog import Catalog
from worker.http.server.auth import parse_api_keys
from worker.http.web import create_app

KEY = "bench-chat-key-0123456789abcdef"
HI = [{"role": "user", "content": "What are your opening hours on Monday?"}]
ANSWER = "We open at nine on Mondays and close at six."
STREAM_PACE = 0.005
SESSION = web.AppKey("bench_relay_session", aiohttp.ClientSession)
Run = Callable[[aiohttp.ClientSession, str], Awaitable[None]]


@function_tool
async def refund(order_id: str) -> str:
    """Refund an order.

    Args:
        order_id: the order number
    """
    return f"refunded {order_id}"


AGENT = define_agent(
    name="support",
    instructions="You help customers.",
    memory=CodeDefaults(read=False, save=False, identity_key="customerId"),
    tools=[refund],
    interrupt_on=["refund"],
)


async def relay(request: web.Request) -> web.StreamResponse:
    """The floor: the body to the model as it came, the model's stream back as it comes."""
    body = await request.read()
    response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
    await response.prepare(request)
    session = request.app[SESSION]
    url = request.app[MODEL_URL]
    async with session.post(f"{url}/chat/completions", data=body) as answer:
        async for chunk in answer.content.iter_any():
            await response.write(chunk)
    await response.write_eof()
    return response


MODEL_URL = web.AppKey("bench_model_url", str)


def _run_body(thread: str, **extra: Any) -> dict[str, Any]:
    messages = [{"id": "u1", **HI[0]}]
    return {
        "threadId": thread,
        "runId": thread,
        "messages": messages,
        "forwardedProps": {"customerId": "crm/1"},
        **extra,
    }


async def _post(http: aiohttp.ClientSession, url: str, body: Any, **headers: str) -> bytes:
    async with http.post(url, json=body, headers=headers) as response:
        read = await response.read()
        assert response.status == 200, (response.status, read[:200])
        return read


def _runs(base: str) -> dict[str, Run]:
    bearer = {"Authorization": f"Bearer {KEY}"}

    async def floor(http: aiohttp.ClientSession, _: str) -> None:
        await _post(http, f"{base}/bench/relay", {"model": "m", "messages": HI, "stream": True})

    async def agui(http: aiohttp.ClientSession, thread: str) -> None:
        await _post(http, f"{base}/agui/support", _run_body(thread), **bearer)

    async def openai(http: aiohttp.ClientSession, thread: str) -> None:
        body = {"model": "support", "messages": HI, "stream": True, "user": "crm/1"}
        session = {"x-stackbone-session": thread}
        await _post(http, f"{base}/v1/chat/completions", body, **bearer, **session)

    return {
        "bare aiohttp relay route (the floor)": floor,
        "AG-UI wire, a streamed run (threadId: a session)": agui,
        "OpenAI wire, a streamed session turn": openai,
    }


async def _one(server: ModelServer, run: Run, http: aiohttp.ClientSession, thread: str) -> Legs:
    server.answer_text(ANSWER)
    sent = time.monotonic()
    await run(http, thread)
    read = time.monotonic()
    return server.received_at[-1] - sent, read - server.answered_at[-1]


async def _resume(
    server: ModelServer, http: aiohttp.ClientSession, base: str, thread: str
) -> float:
    """Park a run on the held tool, then resume it: seconds to the first text delta."""
    bearer = {"Authorization": f"Bearer {KEY}"}
    server.call_tool("refund", {"order_id": "A-1"})
    parked = await _post(http, f"{base}/agui/support", _run_body(thread), **bearer)
    frames = [json.loads(f[6:]) for f in parked.decode().split("\n\n") if f.startswith("data: ")]
    [interrupt] = frames[-1]["outcome"]["interrupts"]
    server.answer_text(ANSWER)
    entry = {"interruptId": interrupt["id"], "status": "resolved", "payload": {"approved": True}}
    body = _run_body(thread, resume=[entry])
    sent = time.monotonic()
    async with http.post(f"{base}/agui/support", json=body, headers=bearer) as response:
        async for line in response.content:
            if b'"TEXT_MESSAGE_CONTENT"' in line:
                first = time.monotonic() - sent
                await response.read()
                return first
    raise AssertionError("the continued run wrote no text")


async def _serve(pool: asyncpg.Pool, server: ModelServer) -> tuple[web.AppRunner, str]:
    app = create_app(
        pool=pool,
        catalog=Catalog([AGENT]),
        api_keys=parse_api_keys(json.dumps([{"name": "b", "key": KEY, "scopes": ["chat"]}])),
        memory_config=MemoryConfig(base_url=server.url, api_key="k"),
        chat=ChatConfig(base_url=server.url, api_key="k", model="bench-model"),
    )
    app[MODEL_URL] = server.url
    app.router.add_post("/bench/relay", relay)

    async def relay_client(app: web.Application) -> AsyncIterator[None]:
        app[SESSION] = aiohttp.ClientSession()
        yield
        await app[SESSION].close()

    app.cleanup_ctx.append(relay_client)
    return await serve(app)


async def measure(pool: asyncpg.Pool, runs: int) -> list[str]:
    server = ModelServer(stream_pace=STREAM_PACE)
    await server.start()
    runner, base = await _serve(pool, server)
    kinds = _runs(base)
    tag = f"bench-{time.time_ns()}"
    samples: dict[str, list[Legs]] = {name: [] for name in kinds}
    resumes: list[float] = []
    try:
        async with aiohttp.ClientSession() as http:
            for warm in range(min(30, runs)):
                for run in kinds.values():
                    await _one(server, run, http, f"{tag}-warm-{warm}")
            for i in range(runs):
                for name, run in kinds.items():
                    samples[name].append(await _one(server, run, http, f"{tag}-{i}"))
                resumes.append(await _resume(server, http, base, f"{tag}-held-{i}"))
    finally:
        await runner.cleanup()
        await server.stop()
    return [*legs_table(samples, "run"), "", _resume_row(resumes)]


def _resume_row(resumes: list[float]) -> str:
    ms = [r * 1000 for r in resumes]
    return (
        f"decision (resume sent) → the continued turn's first text: p50 {pct(ms, 50):.1f} ms, "
        f"p99 {pct(ms, 99):.1f} ms (model deltas {STREAM_PACE * 1000:.0f} ms apart)"
    )


async def main(runs: int) -> None:
    await print_measured("agui-bench-", measure, runs)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=300, help="runs of each kind")
    asyncio.run(main(parser.parse_args().runs))
