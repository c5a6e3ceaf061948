"""Voice benchmark: time from room open to the first greeting audio frame, read on vs off.

Runs the real call sequence (`lifecycle.call.start_call`) on a real AgentSession with fake
models and audio (the test harness), against real Postgres. The person recalled has 50 facts of
500 characters and 100 call records. Usage: python -m bench.voice_bench [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import statistics
import tempfile
from pathlib import Path

from bench.memory_bench import fresh_database, seed_person
from lifecycle.plan import MemoryPlan
from memory.api import Memory, open_memory
from memory.config import MemoryConfig
from memory.database import create_pool, start_embedded
from memory.logs import configure_logging
from memory.store import MemoryStore
from tests.lifecycle.harness import AGENT, CALLER, snapshot_plan, voice_call


async def time_to_greeting(memory: Memory, plan: MemoryPlan) -> float:
    async with voice_call(memory, plan) as call:
        await call.wait_turns(1)
        assert call.io.speaker.first_frame_at is not None
        return (call.io.speaker.first_frame_at - call.opened_at) * 1000


def pct(samples: list[float], p: int) -> float:
    return statistics.quantiles(samples, n=100, method="inclusive")[p - 1]


async def main(quick: bool) -> None:
    configure_logging(logging.WARNING)
    admin_url = os.environ.get("BENCH_DATABASE_URL") or start_embedded(
        Path(tempfile.mkdtemp(prefix="voice-bench-")) / "pgdata", cleanup_mode="delete"
    )
    pool = await create_pool(await fresh_database(admin_url), min_size=2, max_size=2)
    memory = open_memory(MemoryStore(pool), MemoryConfig(api_key="bench"))
    await seed_person(pool, AGENT, CALLER, facts=50, calls=100)
    plans = {
        "read on": await snapshot_plan(pool, read=True, save=False),
        "read off": await snapshot_plan(pool, read=False, save=False),
    }
    rounds = 10 if quick else 60
    samples: dict[str, list[float]] = {name: [] for name in plans}
    for _ in range(rounds):  # interleaved so both see the same machine state
        for name, plan in plans.items():
            samples[name].append(await time_to_greeting(memory, plan))
    await pool.close()
    on, off = samples["read on"], samples["read off"]
    print("| room open -> first greeting audio frame | p50 ms | p95 ms |\n|---|---:|---:|")
    for name, values in samples.items():
        print(f"| {name} | {pct(values, 50):.1f} | {pct(values, 95):.1f} |")
    print(
        f"| read on / read off | {pct(on, 50) / pct(off, 50):.2f}x"
        f" | {pct(on, 95) / pct(off, 95):.2f}x |"
    )
    print(
        f"| read on - read off | {pct(on, 50) - pct(off, 50):+.1f} ms"
        f" | {pct(on, 95) - pct(off, 95):+.1f} ms |"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="10 rounds instead of 60")
    asyncio.run(main(parser.parse_args().quick))
