"""Every public call of `memory.api.Memory` answers within its documented bound on a frozen
server: the pool's command timeout (`DATABASE_COMMAND_TIMEOUT_SECONDS`), plus a margin for a
loaded machine, never the stall's end. The server stays frozen far longer than the bound and is
resumed by a timer, so a call that waits for it shows as a call that took the whole stall."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace
from typing import Any

import pytest

from infra.database import PoolTimeouts, close_pool, create_pool
from infra.deadline import ABANDONED
from memory.api import Memory, open_memory
from memory.config import MemoryConfig
from memory.store._facts import MemoryStore
from testkit.fake_devices import wait_until
from testkit.model_server import ModelServer
from tests.faults.server import FaultServer
from tests.memory.helpers import add_op

COMMAND_SECONDS = 1.0
STALL_SECONDS = 6.0  # resumed by a timer: a call that waits for the server takes this long
MARGIN = 0.6  # a loaded machine's slack past the bound

CALLS: dict[str, Callable[[Memory], Awaitable[Any]]] = {
    "recall": lambda m: m.recall("support", "u1"),
    "history": lambda m: m.history("support", "u1"),
    "delete_all": lambda m: m.delete_all("support", "u1"),
    "search": lambda m: m.search("support", "dog", "u1"),
    "add": lambda m: m.add("I have a dog.", "support", "u1"),
    "consolidate": lambda m: m.consolidate("I have a dog.", "support", "u1", turn=1, final=False),
}


@pytest.fixture
async def stalling_memory(
    fault_db: str, memory_config: MemoryConfig, model_server: ModelServer
) -> AsyncIterator[Memory]:
    pool = await create_pool(
        fault_db, min_size=1, max_size=5, timeouts=PoolTimeouts(command_seconds=COMMAND_SECONDS)
    )
    config = replace(memory_config, database_timeout_seconds=COMMAND_SECONDS)
    memory = open_memory(MemoryStore(pool), config)
    model_server.answer([add_op("Has a dog.")])
    assert (await memory.add("I have a dog.", "support", "u1")).error is None  # warm: capable
    yield memory
    await memory.aclose(1.0)
    await close_pool(pool, 2.0)


@pytest.mark.parametrize("name", list(CALLS))
async def test_a_public_call_answers_within_the_command_timeout_on_a_frozen_server(
    fault_server: FaultServer, stalling_memory: Memory, model_server: ModelServer, name: str
) -> None:
    model_server.answer([])
    loop = asyncio.get_running_loop()
    fault_server.stall()
    timer = loop.call_later(STALL_SECONDS, fault_server.resume)
    try:
        started = time.monotonic()
        result = await CALLS[name](stalling_memory)
        took = time.monotonic() - started
    finally:
        timer.cancel()
        if fault_server.stalled:
            fault_server.resume()
    print(f"\n{name} on a frozen server answered after {took * 1000:.0f} ms")
    assert result.error is not None and result.error.code == "memory_unavailable", result
    assert took < COMMAND_SECONDS + MARGIN
    assert await ABANDONED.settle(COMMAND_SECONDS + 3.0)


async def test_an_add_whose_write_meets_a_frozen_server_fails_at_the_bound(
    fault_server: FaultServer, stalling_memory: Memory, model_server: ModelServer
) -> None:
    """The server freezes during the model call: the write is given up at the bound."""
    model_server.answer_text('{"operations": [], "summary": "A call."}', delay=0.3)
    asked = len(model_server.requests)
    adding = asyncio.create_task(stalling_memory.add("I have a cat.", "support", "u1"))
    await wait_until(lambda: len(model_server.requests) > asked)  # the model call is in flight
    fault_server.stall()
    timer = asyncio.get_running_loop().call_later(STALL_SECONDS, fault_server.resume)
    started = time.monotonic()
    try:
        result = await adding
        took = time.monotonic() - started
    finally:
        timer.cancel()
        if fault_server.stalled:
            fault_server.resume()
    print(f"\nadd with a frozen write answered {took * 1000:.0f} ms after the freeze")
    assert result.error is not None and result.error.code == "memory_persist_failed", result
    assert took < 0.3 + COMMAND_SECONDS + MARGIN
    assert await ABANDONED.settle(COMMAND_SECONDS + 3.0)
