"""Document ranking evaluation: hybrid (meaning and text, fused) against meaning alone, on the
help center of `testkit.help_center` (8 policy articles, 40 product sheets).

Prints, per set of queries, the mean reciprocal rank in the top 5 and the share found first,
by meaning alone (the store's `nearest`) and hybrid (`Documents.retrieve`), then each query's
rank both ways (`-`: not in the top 5). Embeddings come from the local server's bag of words,
a stand-in: a real model places codes differently, but no dense model matches a code it has
never seen as exactly as the text index does.

Usage: python -m bench.documents_ranking_bench
Uses BENCH_DATABASE_URL when set, else a throwaway embedded Postgres.
"""

from __future__ import annotations

import asyncio
import logging
import os
import tempfile
from pathlib import Path

from bench.memory_bench import fresh_database
from infra.database import create_pool
from infra.embedded import start_embedded
from infra.logs import configure_logging
from memory.config import MemoryConfig
from memory.documents import Documents
from memory.documents._store import DocumentStore
from testkit.help_center import (
    ARTICLES,
    ORDINARY_QUERIES,
    code_queries,
    product_sheets,
    reciprocal_rank,
)
from testkit.model_server import ModelServer, bag_of_words

NS = "shop"
TOP = 5


async def ranked(docs: Documents, collection: int, query: str) -> tuple[list[str], list[str]]:
    vector = "[" + ",".join(map(repr, bag_of_words(query, 512))) + "]"
    near = await DocumentStore(docs.pool).nearest(collection, vector, TOP)
    found = await docs.retrieve(query, TOP, NS)
    assert found.data is not None, found.error
    return [h.document.source for h in near], [h.document.source for h in found.data.hits]


def position(found: list[str], wanted: str) -> str:
    return str(found.index(wanted) + 1) if wanted in found else "-"


async def evaluate(docs: Documents, collection: int, name: str, queries: dict[str, str]) -> None:
    rr = [0.0, 0.0]
    first = [0, 0]
    lines = []
    for query, wanted in queries.items():
        lists = await ranked(docs, collection, query)
        for i, found in enumerate(lists):
            rr[i] += reciprocal_rank(found, wanted)
            first[i] += found[:1] == [wanted]
        lines.append(
            f"|   `{query}` | {position(lists[0], wanted)} | {position(lists[1], wanted)} |"
        )
    n = len(queries)
    print(
        f"| **{name}** ({n}): MRR@{TOP}, found first"
        f" | {rr[0] / n:.2f}, {first[0]}/{n} | {rr[1] / n:.2f}, {first[1]}/{n} |"
    )
    print("\n".join(lines))


async def main() -> None:
    configure_logging(logging.WARNING)
    admin_url = os.environ.get("BENCH_DATABASE_URL") or start_embedded(
        Path(tempfile.mkdtemp(prefix="ranking-bench-")) / "pgdata", cleanup_mode="delete"
    )
    server = ModelServer()
    await server.start()
    url = await fresh_database(admin_url)
    pool = await create_pool(url, min_size=2, max_size=2)
    config = MemoryConfig(base_url=server.url, api_key="b", embedding_model="bench-embedding")
    docs = Documents(pool, config)
    try:
        sheets = product_sheets()
        for source, text in (dict(ARTICLES) | {s.source: s.text for s in sheets}).items():
            done = await docs.ingest(
                text.encode(), source=source, content_type="text/markdown", namespace=NS
            )
            assert done.data is not None, done.error
        collection = await pool.fetchval(
            "select id from stackbone_platform.doc_collections where namespace = $1", NS
        )
        print("| queries | meaning alone | hybrid |\n|---|---|---|")
        await evaluate(docs, collection, "product codes", code_queries(sheets))
        await evaluate(docs, collection, "ordinary questions", ORDINARY_QUERIES)
    finally:
        await docs.aclose()
        await pool.close()
        await server.stop()


if __name__ == "__main__":
    asyncio.run(main())
