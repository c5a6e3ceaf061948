"""The SQL of the text list of hybrid ranking (migrations 0013, 0023): chunks ranked by all of a
query's words, with a BM25 score computed over the collection.

The query's words are folded as the chunks' index is (0004, 0013: `simple`, lower-cased,
accent-folded); the stop words of the collection's language (0023) are left out, and then the
`LEXICAL_WORDS` longest are kept (a bound on a long query's probes; codes are long). Each word's
chunks in the collection are counted through the GIN index (at most `selective + 1` read),
except a word that ANALYZE's statistics of the column (`most_common_elems`) place in more than
`selective` chunks of the whole table: it is taken as common unread. A word in 1..`selective`
chunks is kept, weighted by its inverse document frequency over the collection's chunks; words
found nowhere (a typo) or in more chunks (`kettle` in a kettle shop) say nothing by text.

A chunk holding any kept word scores, over the kept words it holds,
`idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl))` (Okapi BM25; `tf` the word's
occurrences in the chunk, `dl` the chunk's distinct words, `avgdl` their mean over the chunks
matched). So a product code (one chunk) outweighs every common word, and a question's content
words together outweigh any one of them. A chunk's counts are read in C: `setweight` marks the
kept words' positions, `ts_filter` keeps only them, and only those few are unnested (unnesting
every word of every chunk matched cost ten times as much). No embedding is read: the list runs
without pgvector.
"""

from __future__ import annotations

from memory.documents._ranking import BM25_B, BM25_K1, LEXICAL_WORDS

_S = "stackbone_platform"

# `{collection}`, `{query}`, `{selective}`: the SQL expressions (parameters) of each
_TEXT_LIST = f"""
    language as (
        select (l.language || '_stem')::regdictionary as dictionary
        from {_S}.doc_collections l where l.id = {{collection}}),
    words as (
        select w.word from unnest(tsvector_to_array(
            to_tsvector('simple', {_S}.search_fold({{query}})))) as w(word)
        where not exists (select 1 from language l
                          where ts_lexize(l.dictionary, w.word) = '{{{{}}}}'::text[])
        order by length(w.word) desc, w.word limit {LEXICAL_WORDS}),
    common as (
        select e.word from (
            select unnest(s.most_common_elems::text::text[]) as word,
                unnest(s.most_common_elem_freqs) as freq
            from pg_stats s
            where s.schemaname = '{_S}' and s.tablename = 'doc_chunks'
                and s.attname = 'search_text') e
        where e.freq * (select reltuples from pg_class
                        where oid = '{_S}.doc_chunks'::regclass) > {{selective}}),
    counted as materialized (
        select w.word, case when w.word in (select word from common) then {{selective}} + 1
            else (select count(*) from (
                select 1 from {_S}.doc_chunks c
                where c.collection_id = {{collection}}
                    and c.search_text @@ quote_literal(w.word)::tsquery
                limit {{selective}} + 1) as found) end as n
        from words w),
    size as (
        select greatest(coalesce(sum(d.chunk_count), 0), 1)::float8 as chunks
        from {_S}.doc_documents d
        where d.collection_id = {{collection}} and d.status = 'ready'),
    kept as (
        select k.word, ln(1 + (z.chunks - k.n + 0.5) / (k.n + 0.5)) as idf
        from counted k, size z where k.n between 1 and {{selective}}),
    any_word as (
        select string_agg(quote_literal(word), ' | ')::tsquery as q, array_agg(word) as words
        from kept),
    matched as (
        select c.document_id, c.seq, c.search_text
        from {_S}.doc_chunks c, any_word a
        where c.collection_id = {{collection}} and c.search_text @@ a.q),
    spread as (select avg(length(search_text))::float8 as avgdl from matched),
    scored as (
        select m.document_id, m.seq,
            sum(k.idf * t.tf * {BM25_K1 + 1} / (t.tf + {BM25_K1}
                * ({1 - BM25_B} + {BM25_B} * length(m.search_text) / p.avgdl))) as text_rank
        from matched m cross join spread p cross join any_word a
        cross join lateral (
            select u.lexeme, coalesce(array_length(u.positions, 1), 1) as tf
            from unnest(ts_filter(setweight(m.search_text, 'A', a.words), '{{{{a}}}}')) u) t
        join kept k on k.word = t.lexeme
        group by m.document_id, m.seq)"""


def text_list(collection: str, query: str, selective: str) -> str:
    """The common table expressions ending in `scored (document_id, seq, text_rank)`, every
    chunk holding a kept word, for the given parameter expressions."""
    return _TEXT_LIST.format(collection=collection, query=query, selective=selective)
