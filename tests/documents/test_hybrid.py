"""Hybrid ranking measured on a help center (`testkit.help_center`): a query holding a rare
product code finds its sheet first, where ranking by meaning alone (the store's `nearest`)
misses it; ordinary questions rank as well as by meaning alone."""

from __future__ import annotations

import pytest

from memory.documents import Documents
from memory.documents._ranking import CANDIDATES, LEXICAL_WORDS
from memory.documents._store import DocumentStore
from testkit.help_center import (
    ARTICLES,
    ORDINARY_QUERIES,
    code_queries,
    product_sheets,
    reciprocal_rank,
)
from testkit.model_server import bag_of_words

NS = "shop"


async def load(documents: Documents) -> None:
    texts = dict(ARTICLES) | {s.source: s.text for s in product_sheets()}
    for source, text in texts.items():
        done = await documents.ingest(
            text.encode(), source=source, content_type="text/markdown", namespace=NS
        )
        assert done.data is not None, done.error


async def collection_id(documents: Documents) -> int:
    found: int = await documents.pool.fetchval(
        "select id from stackbone_platform.doc_collections where namespace = $1", NS
    )
    return found


def vector_of(text: str) -> str:
    return "[" + ",".join(map(repr, bag_of_words(text, 512))) + "]"


async def ranks(documents: Documents, queries: dict[str, str]) -> list[tuple[float, float]]:
    """Each query's reciprocal rank in the top 5: by meaning alone, and hybrid."""
    store, collection = DocumentStore(documents.pool), await collection_id(documents)
    both = []
    for query, wanted in queries.items():
        # read as deep as hybrid reads its semantic list: an HNSW search is approximate, and a
        # short read (5) can miss what a long one (50) finds, which is not what is compared here
        near = (await store.nearest(collection, vector_of(query), CANDIDATES))[:5]
        found = await documents.retrieve(query, 5, NS)
        assert found.data is not None, found.error
        both.append(
            (
                reciprocal_rank([h.document.source for h in near], wanted),
                reciprocal_rank([h.document.source for h in found.data.hits], wanted),
            )
        )
    return both


def mean(values: list[float]) -> float:
    return sum(values) / len(values)


async def test_a_rare_product_code_is_found_first_where_meaning_alone_misses_it(
    documents: Documents,
) -> None:
    await load(documents)
    sheets = product_sheets()
    target = max(sheets[::4], key=lambda s: len(s.text))  # the longest sheet asked about
    found = await documents.retrieve(target.code, 5, NS)
    assert found.data is not None, found.error
    assert found.data.hits[0].document.source == target.source
    assert target.code in found.data.hits[0].content
    assert 0.5 < found.data.hits[0].score <= 1.0
    measured = await ranks(documents, code_queries(sheets))
    assert mean([v for v, _ in measured]) < 0.5  # meaning alone: most codes' sheets low or out
    assert [h for _, h in measured] == [1.0] * len(measured)  # every one first, bare or asked


async def test_ordinary_questions_rank_at_least_as_well_as_by_meaning_alone(
    documents: Documents,
) -> None:
    await load(documents)
    measured = await ranks(documents, ORDINARY_QUERIES)
    # on average, not query by query: both read an HNSW index, whose search is approximate
    # (a graph built with random levels)
    assert mean([h for _, h in measured]) >= mean([v for v, _ in measured])
    assert mean([h for _, h in measured]) >= 0.7


async def test_a_word_joins_the_text_list_only_while_it_is_in_few_enough_chunks(
    documents: Documents,
) -> None:
    await load(documents)
    collection, sheet = await collection_id(documents), product_sheets()[0]
    vector = vector_of("unrelated words entirely")  # far from every sheet by meaning
    ranked_by_text = DocumentStore(documents.pool, lexical_selective=1)
    [hit] = await ranked_by_text.hybrid(collection, vector, sheet.code, 1)
    assert hit.document.source == sheet.source  # the code is in 1 chunk: at the limit
    too_common = DocumentStore(documents.pool, lexical_selective=0)
    [hit] = await too_common.hybrid(collection, vector, sheet.code, 1)
    assert hit.document.source != sheet.source  # past it: meaning alone
    assert hit.score == pytest.approx(0.5)  # first in one list of two


@pytest.mark.parametrize(
    "query",
    [
        "it's O'Brien's 50% off & | ! <-> (deal)",
        "C:\\tmp\\a.txt or /usr/bin/x and 'quoted' \"phrase\" -minus",
        "...",  # no word at all: ranked by meaning alone
        "sku-52445-b SKU-52445-B sku 52445",
    ],
)
async def test_any_query_text_is_searched_never_parsed_as_syntax(
    documents: Documents, query: str
) -> None:
    await load(documents)
    found = await documents.retrieve(query, 5, NS)
    assert found.error is None, found.error
    assert found.data is not None and len(found.data.hits) == 5


async def test_only_the_longest_words_of_a_long_query_are_counted(documents: Documents) -> None:
    await load(documents)
    sheet = product_sheets()[0]
    short = " ".join(f"w{i}" for i in range(LEXICAL_WORDS))  # as many words, all shorter
    found = await documents.retrieve(f"{short} {sheet.code}", 1, NS)
    assert found.data is not None and found.data.hits[0].document.source == sheet.source
    long_words = " ".join(f"longerword{i:03}" for i in range(LEXICAL_WORDS))  # all longer
    found = await documents.retrieve(f"{long_words} {sheet.code}", 1, NS)
    assert found.data is not None and found.data.hits[0].document.source != sheet.source


async def test_with_the_columns_statistics_common_words_are_skipped_and_codes_still_found(
    documents: Documents,
) -> None:
    """After ANALYZE, words the statistics say are in more chunks than the bound are not
    counted (`sku` is in 40 of 48 chunks); a code, in one, is still found first."""
    await load(documents)
    await documents.pool.execute("analyze stackbone_platform.doc_chunks")
    common = await documents.pool.fetchval(
        "select 'sku' = any(most_common_elems::text::text[]) from pg_stats"
        " where tablename = 'doc_chunks' and attname = 'search_text'"
    )
    assert common is True
    store, collection = (
        DocumentStore(documents.pool, lexical_selective=10),
        await collection_id(documents),
    )
    for sheet in product_sheets()[::4]:
        [hit] = await store.hybrid(collection, vector_of("unrelated words"), f"{sheet.code} sku", 1)
        assert hit.document.source == sheet.source
