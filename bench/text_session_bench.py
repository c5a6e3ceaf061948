"""Text session benchmark: what binding the memory tools adds to a LiveKit text turn.

A real AgentSession (no room, the fake LLM of `testkit`) answers text turns. Each turn is
timed from the user's message to the model's request (`llm.chat` called), two ways, rounds
interleaved:

- plain: the message goes straight to `generate_reply`, as livekit's text input does;
- memory: `TextMemory.begin_turn` first (the agent's settings read from Postgres, the identity
  from the participant's attributes, `agent.update_tools`), then the same `generate_reply`.

Medians and their ratio print in one run. Usage: python -m bench.text_session_bench [--rounds N]
(BENCH_DATABASE_URL: a server to use; otherwise an embedded one is started).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from livekit.agents import Agent, AgentSession, llm

from bench.memory_bench import fresh_database
from callmemory.text import TextMemory
from infra.database import PoolTimeouts
from infra.embedded import start_embedded
from infra.logs import configure_logging
from memory.config import MemoryConfig
from memory.settings import CodeDefaults
from testkit.call_harness import job_runtime
from testkit.fake_models import FakeLLM
from testkit.mock_room import STANDARD, participant

CODE = CodeDefaults(read=True, save=True, identity_key="customerId")


class TimedLLM(FakeLLM):
    """The fake LLM, noting when each request was made."""

    def __init__(self) -> None:
        super().__init__(default_reply="Okay.")
        self.asked_at: list[float] = []

    def chat(self, **kwargs: Any) -> llm.LLMStream:
        self.asked_at.append(time.perf_counter())
        return super().chat(**kwargs)


@llm.function_tool
async def order_status(order: str) -> str:
    """Where an order is."""
    return f"Order {order} shipped."


async def one_turn(session: AgentSession[None], model: TimedLLM, text: TextMemory | None) -> float:
    who = participant("web-user", STANDARD, {"customerId": "crm/person_42"})
    started = time.perf_counter()
    if text is not None:
        await text.begin_turn(who)
    handle = session.generate_reply(user_input="Where is my order?")
    await handle
    return model.asked_at[-1] - started


async def run(url: str, rounds: int) -> dict[str, float]:
    runtime = job_runtime(url, MemoryConfig(base_url="http://127.0.0.1:9/v1"), PoolTimeouts())
    model = TimedLLM()
    session: AgentSession[None] = AgentSession(llm=model)
    await session.start(Agent(instructions="You answer customers.", tools=[order_status]))
    text = TextMemory("bench-text", CODE, runtime, session)
    seconds: dict[str, list[float]] = {"plain": [], "memory": []}
    try:
        await one_turn(session, model, text)  # warm: the pool, the binding offered once
        for _ in range(rounds):
            seconds["plain"].append(await one_turn(session, model, None))
            seconds["memory"].append(await one_turn(session, model, text))
    finally:
        await session.aclose()
        await text.aclose()
    return {name: statistics.median(values) for name, values in seconds.items()}


async def main(rounds: int) -> None:
    configure_logging(logging.WARNING)
    admin_url = os.environ.get("BENCH_DATABASE_URL") or start_embedded(
        Path(tempfile.mkdtemp(prefix="text-bench-")) / "pgdata", cleanup_mode="delete"
    )
    medians = await run(await fresh_database(admin_url), rounds)
    plain, memory = medians["plain"], medians["memory"]
    print(f"text turn, message in -> model request out, median of {rounds} interleaved rounds")
    print(f"  plain   {plain * 1000:7.2f} ms  1.00x")
    print(f"  memory  {memory * 1000:7.2f} ms  {memory / plain:.2f}x")
    print(f"  binding adds {(memory - plain) * 1000:.2f} ms per turn")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=50)
    asyncio.run(main(parser.parse_args().rounds))
