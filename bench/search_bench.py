"""Search benchmark: latency as a ratio to `SELECT 1` on the same pool, at 1,000 and at 10,000
contacts with 20 facts each (200,000 facts), so the growth between the two is visible.

Usage: python -m bench.search_bench [--quick]   (quick: 100 and 1,000 contacts)
Uses BENCH_DATABASE_URL when set, else a throwaway embedded Postgres. Facts are loaded with
COPY; their vectors are filled in server-side (clustered random 512-dimension vectors: the
latency of an HNSW scan does not depend on what the vectors mean) and the HNSW index is built
after each load, as a bulk import would.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import random
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path

import asyncpg

from bench.memory_bench import HEADER, fresh_database, interleaved, row
from infra.database import Executor, create_pool
from infra.embedded import start_embedded
from infra.logs import configure_logging
from infra.long_ops import LongOpLimits, connect_long
from memory.api import Memory, open_memory
from memory.config import MemoryConfig
from memory.search import SearchStore
from memory.store import MemoryStore
from testkit.model_server import ModelServer, bag_of_words

S = "stackbone_platform"
AGENT = "support"
MODEL = "bench-embedding"
FACTS_PER_CONTACT = 20
NAMES = ["Ana", "Luis", "Marta", "John", "Aisha", "Jürgen", "Chen", "Lucía", "Omar", "Sofía"]
CITIES = ["Madrid", "Sevilla", "Bilbao", "London", "Lyon", "Porto", "Valencia", "Berlin"]
PRODUCTS = ["fibre", "mobile", "solar panels", "insurance", "the premium plan", "a router"]
TEMPLATES = [
    "Prefers to be called in the afternoon about {product}.",
    "Lives in {city} with {name}.",
    "Asked not to be called on Mondays.",
    "Prefiere que le llamen por teléfono después de las {hour}.",
    "Tiene contratado {product} desde {year}.",
    "Customer reference {num} at the {city} office.",
    "Owns a dog called {name}.",
    "Vive en {city} y trabaja de enfermera.",
    "Complained about the bill in {year}.",
    "Wants a quote for {product}.",
    "Su hija {name} también es cliente.",
    "Speaks {lang} at home.",
    "Has an appointment on day {day} of the month.",
    "Paid invoice {num} late.",
    "Was promised a callback by {name}.",
    "Usa {product} para trabajar desde casa.",
    "Birthday is in month {month}.",
    "Moved from {city} in {year}.",
    "Is allergic to cats.",
    "Referred by {name} from {city}.",
]
S1 = "SELECT 1"


def fact_text(rng: random.Random, template: str) -> str:
    return template.format(
        product=rng.choice(PRODUCTS),
        city=rng.choice(CITIES),
        name=rng.choice(NAMES),
        hour=rng.randint(14, 20),
        year=rng.randint(2005, 2026),
        num=rng.randint(100_000, 999_999),
        lang=rng.choice(["Spanish", "English", "Catalan", "Arabic"]),
        day=rng.randint(1, 28),
        month=rng.randint(1, 12),
    )


def contact(i: int) -> str:
    return f"+34 6{i:08d}"


async def load(conn: asyncpg.Connection, first: int, last: int) -> None:
    """Contacts first..last-1 with 20 facts each, by COPY; then their vectors, then the index.

    A bulk load: `conn` is a long operation's connection, not one of the measured pool's.
    """
    rng, now = random.Random(first), datetime.now(UTC)
    facts = [
        (AGENT, contact(i), fact_text(rng, template), now, now)
        for i in range(first, last)
        for template in rng.sample(TEMPLATES, FACTS_PER_CONTACT)
    ]
    await conn.copy_records_to_table(
        "memory_revisions",
        schema_name=S,
        columns=["agent_id", "user_id", "revision"],
        records=[(AGENT, contact(i), 1) for i in range(first, last)],
    )
    await conn.execute(f"drop index if exists {S}.memory_fact_vectors_nearest")
    await conn.copy_records_to_table(
        "memory_facts",
        schema_name=S,
        columns=["agent_id", "user_id", "content", "created_at", "updated_at"],
        records=facts,
    )
    await fill_vectors(conn)


async def fill_vectors(conn: Executor) -> None:
    await conn.execute(
        f"""create temp table if not exists centers as
            select c, (select array_agg(random() - 0.5) from generate_series(1, 512)
                       where c >= 0)::vector(512) as v
            from generate_series(0, 255) c;
        update {S}.memory_fact_vectors v set model = '{MODEL}',
            embedding = c.v + (select array_agg((random() - 0.5) * 0.3)
                               from generate_series(1, 512) where v.fact_id is not null)::vector
        from {S}.memory_facts f, centers c
        where f.id = v.fact_id and v.embedding is null
          and c.c = abs(hashtext(f.content)) % 256"""
    )
    await conn.execute("set maintenance_work_mem = '1GB'")
    await conn.execute(
        f"""create index memory_fact_vectors_nearest on {S}.memory_fact_vectors
            using hnsw (embedding vector_cosine_ops)"""
    )
    await conn.execute("reset maintenance_work_mem")
    for table in ("memory_facts", "memory_fact_vectors", "memory_revisions"):
        await conn.execute(f"vacuum analyze {S}.{table}")


Probe = Callable[[], Awaitable[object]]


def probes(pool: asyncpg.Pool, memory: Memory, probe_user: str) -> dict[str, Probe]:
    store = SearchStore(pool)
    vector = "[" + ",".join(repr(v) for v in bag_of_words("called about solar panels", 512)) + "]"
    return {
        "lexical, one contact (`called`)": lambda: store.lexical(AGENT, probe_user, "called", 10),
        "lexical, all contacts, selective (`invoice 123456`)": lambda: store.lexical(
            AGENT, None, "invoice 123456", 10
        ),
        "lexical, all contacts, common word (`called`, ~15% of facts)": lambda: store.lexical(
            AGENT, None, "called", 10
        ),
        "semantic, one contact (vector given)": lambda: store.semantic(
            AGENT, probe_user, vector, MODEL, 10
        ),
        "semantic, all contacts, HNSW (vector given)": lambda: store.semantic(
            AGENT, None, vector, MODEL, 10
        ),
        "identifier fragment, all contacts (`600000`)": lambda: store.identifier(
            AGENT, "600000", 10
        ),
        "identifier prefix, all contacts (`+34 6000001`)": lambda: store.identifier(
            AGENT, "+34 6000001", 10
        ),
        "hybrid end to end (API, local embedding server)*": lambda: memory.search(
            AGENT, "who asked not to be called", k=10
        ),
    }


async def measure(pool: asyncpg.Pool, memory: Memory, n: int, contacts: int) -> list[str]:
    selected = probes(pool, memory, contact(contacts // 2))
    lines = []
    for name, probe in selected.items():
        base, samples = await interleaved([lambda: pool.fetchval("select 1"), probe], n)
        lines.append(row(f"{name} — {contacts:,} contacts", samples, base))
    return lines


async def main(quick: bool) -> None:
    configure_logging(logging.WARNING)
    admin_url = os.environ.get("BENCH_DATABASE_URL") or start_embedded(
        Path(tempfile.mkdtemp(prefix="search-bench-")) / "pgdata", cleanup_mode="delete"
    )
    small, large, n = (100, 1_000, 100) if quick else (1_000, 10_000, 400)
    server = ModelServer()
    await server.start()
    url = await fresh_database(admin_url)
    pool = await create_pool(url, min_size=5, max_size=5)  # the call path's limits
    loads = await connect_long(url, LongOpLimits())
    config = MemoryConfig(base_url=server.url, api_key="bench", embedding_model=MODEL)
    memory = open_memory(MemoryStore(pool), config)
    try:
        print(
            "\\* each row is paired with its own interleaved `SELECT 1` series;"
            " the hybrid row includes the HTTP round trip to the in-process model server.\n"
        )
        print(HEADER)
        for size, start in ((small, 0), (large, small)):
            t = time.perf_counter()
            await load(loads, start, size)
            loaded = time.perf_counter() - t
            facts = await pool.fetchval(f"select count(*) from {S}.memory_facts")
            print(
                f"| _loaded to {facts:,} facts in {loaded:.0f} s (COPY, vectors, HNSW)_ | | | | |"
            )
            for line in await measure(pool, memory, n, size):
                print(line, flush=True)
    finally:
        await memory.drain_indexing()
        await loads.close()
        await pool.close()
        await server.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="100 and 1,000 contacts")
    asyncio.run(main(parser.parse_args().quick))
