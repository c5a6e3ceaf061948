"""Document collections benchmark: retrieve's database part as a ratio to `SELECT 1` on the same
pool, at 10,000 and at 100,000 chunks in the searched collection (plus as many in another one),
by meaning alone and hybrid (a query whose words are in every chunk, one holding a code found
in one chunk, and one of 8 words each in 200 chunks, the most the text list scores), and
ingestion throughput in chunks/s through the local embeddings server.

Usage: python -m bench.documents_bench [--quick]   (quick: 1,000 and 10,000 chunks)
Uses BENCH_DATABASE_URL when set, else a throwaway embedded Postgres. Chunks are generated
server-side on a long operation's connection (`infra.long_ops`): clustered random 512-dimension
vectors (an HNSW scan's latency does not depend on what the vectors mean), the HNSW index
built after each load, as a bulk import would.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import tempfile
import time
from pathlib import Path

import asyncpg

from bench.memory_bench import HEADER, fresh_database, interleaved, row
from infra.database import create_pool
from infra.embedded import start_embedded
from infra.logs import configure_logging
from infra.long_ops import LongOpLimits, connect_long
from memory.config import MemoryConfig
from memory.documents import Documents
from memory.documents._store import DocumentStore
from testkit.model_server import ModelServer, bag_of_words

S = "stackbone_platform"
MODEL = "bench-embedding"
CHUNKS_PER_DOCUMENT = 100
# one chunk of the searched collection holds a product code (the text index finds it)
CODE_CHUNK = f"""update {S}.doc_chunks set content = content || ' SKU-88412-B'
    where (document_id, seq) = (select document_id, seq from {S}.doc_chunks
                                where collection_id = $1 and content not like '%SKU-%' limit 1)"""
# a question's words each in as many chunks as the text list takes a word from (200): the most
# chunks the text list scores (`memory.documents._lexical`); `{}` is the word
TOPIC_WORDS = [f"topic{i}" for i in range(1, 9)]
TOPIC_CHUNKS = f"""update {S}.doc_chunks set content = content || ' {{0}}'
    where (document_id, seq) in (
        select document_id, seq from {S}.doc_chunks
        where collection_id = $1 and content not like '% {{0}}%' order by random()
        limit greatest(0, 200 - (select count(*) from {S}.doc_chunks
                                 where collection_id = $1 and content like '% {{0}}%')))"""
QUESTION = f"which {' '.join(TOPIC_WORDS)} fits"


async def collection(conn: asyncpg.Connection, namespace: str) -> int:
    await conn.execute(
        f"insert into {S}.doc_collections (namespace, embedding_model, dimensions)"
        " values ($1, $2, 512) on conflict do nothing",
        namespace,
        MODEL,
    )
    found: int = await conn.fetchval(
        f"select id from {S}.doc_collections where namespace = $1", namespace
    )
    return found


async def load(conn: asyncpg.Connection, collection_id: int, chunks: int) -> None:
    """`chunks` more ready chunks in the collection, 100 per document."""
    await conn.execute(f"drop index if exists {S}.doc_chunks_nearest")
    await conn.execute(
        """create temp table if not exists centers as
            select c, (select array_agg(random() - 0.5) from generate_series(1, 512)
                       where c >= 0)::vector(512) as v
            from generate_series(0, 255) c"""
    )
    await conn.execute(
        f"""with docs as (
                insert into {S}.doc_documents (collection_id, source, title, content_type,
                    bytes, model, status, chunk_count)
                select $1, 'bench-' || gen_random_uuid(), 'Bench', 'text/plain', 1000, $2,
                    'ready', {CHUNKS_PER_DOCUMENT}
                from generate_series(1, $3 / {CHUNKS_PER_DOCUMENT})
                returning id)
            insert into {S}.doc_chunks (document_id, seq, collection_id, content, embedding)
            select d.id, s, $1, 'Chunk ' || s || ' of a bench document about kettles.',
                c.v + (select array_agg((random() - 0.5) * 0.3)
                       from generate_series(1, 512) where s >= 0 and d.id is not null)::vector
            from docs d, generate_series(0, {CHUNKS_PER_DOCUMENT - 1}) s, centers c
            where c.c = abs(hashtext(d.id::text || s)) % 256""",
        collection_id,
        MODEL,
        chunks,
    )
    await conn.execute("set maintenance_work_mem = '1GB'")
    await conn.execute(
        f"create index doc_chunks_nearest on {S}.doc_chunks"
        " using hnsw (embedding vector_cosine_ops)"
    )
    await conn.execute("reset maintenance_work_mem")
    for table in ("doc_documents", "doc_chunks"):
        await conn.execute(f"vacuum analyze {S}.{table}")


async def ingestion(pool: asyncpg.Pool, server: ModelServer, chunks: int) -> str:
    docs = Documents(pool, MemoryConfig(base_url=server.url, api_key="b", embedding_model=MODEL))
    text = " ".join(f"kettle{i % 997} policy{i % 13}" for i in range(chunks * 55))
    try:
        started = time.perf_counter()
        result = await docs.ingest(text.encode(), source="bench.txt", content_type="text/plain")
        seconds = time.perf_counter() - started
    finally:
        await docs.aclose()
    assert result.data is not None, result.error
    made = result.data.chunk_count
    return f"ingestion: {made:,} chunks in {seconds:.1f} s = {made / seconds:,.0f} chunks/s"


async def main(quick: bool) -> None:
    configure_logging(logging.WARNING)
    admin_url = os.environ.get("BENCH_DATABASE_URL") or start_embedded(
        Path(tempfile.mkdtemp(prefix="documents-bench-")) / "pgdata", cleanup_mode="delete"
    )
    small, large, n = (1_000, 10_000, 100) if quick else (10_000, 100_000, 400)
    server = ModelServer()
    await server.start()
    url = await fresh_database(admin_url)
    pool = await create_pool(url, min_size=5, max_size=5)  # the call path's limits
    loads = await connect_long(url, LongOpLimits())
    try:
        print(await ingestion(pool, server, 1_000 if not quick else 200), "\n")
        searched, other = await collection(loads, "help-center"), await collection(loads, "other")
        store = DocumentStore(pool)
        vector = "[" + ",".join(repr(v) for v in bag_of_words("kettle return policy", 512)) + "]"
        print(HEADER)
        loaded = 0
        for size in (small, large):
            t = time.perf_counter()
            await load(loads, searched, size - loaded)
            await load(loads, other, size - loaded)
            loaded = size
            took = time.perf_counter() - t
            print(f"| _loaded to {size:,} + {size:,} chunks in {took:.0f} s_ | | | | |")
            await loads.execute(CODE_CHUNK, searched)
            for word in TOPIC_WORDS:
                await loads.execute(TOPIC_CHUNKS.format(word), searched)
            base, near, common, code, question = await interleaved(
                [
                    lambda: pool.fetchval("select 1"),
                    lambda: store.nearest(searched, vector, 5),
                    lambda: store.hybrid(searched, vector, "bench document about kettles", 5),
                    lambda: store.hybrid(searched, vector, "is SKU-88412-B in stock", 5),
                    lambda: store.hybrid(searched, vector, QUESTION, 5),
                ],
                n,
            )
            print(row(f"nearest 5 chunks, HNSW — {size:,} chunks", near, base))
            print(row(f"hybrid, words in every chunk — {size:,}", common, base))
            print(row(f"hybrid, a code in one chunk — {size:,}", code, base))
            print(row(f"hybrid, 8 words in 200 chunks each — {size:,}", question, base), flush=True)
    finally:
        await loads.close()
        await pool.close()
        await server.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="1,000 and 10,000 chunks")
    asyncio.run(main(parser.parse_args().quick))
