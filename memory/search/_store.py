"""The SQL of search and of the fact vectors (migration 0004). Reads fail as `Unavailable`.

Each query has a contact-scoped and an agent-scoped form rather than one with an optional user:
a prepared statement's generic plan would otherwise serve both with one plan. The contact form
reads the contact's facts (at most 50) through the scope index and ranks them exactly.

Fact texts are stored escaped where a model wrote a NUL or a lone surrogate
(`memory.store.stored_text`): hits and pending facts carry them read back exactly; the text
index reads each escape as a word break (`search_fold`, migration 0025).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass

import asyncpg

from memory.contract import PersistFailed, Unavailable
from memory.search._availability import SearchAvailability, read_search_availability
from memory.search._models import SearchHit
from memory.store import read_text, stored_source, translated

_S = "stackbone_platform"
_TSQUERY = f"websearch_to_tsquery('simple', {_S}.search_fold($2))"

_LEXICAL_AGENT = f"""select f.user_id, f.id::text, f.content,
        ts_rank_cd(f.search_text, q.v, 32)::float8 as score, f.source::text
    from {_S}.memory_facts f, {_TSQUERY} as q(v)
    where f.agent_id = $1 and f.search_text @@ q.v
    order by score desc, f.seq limit $3"""
_LEXICAL_CONTACT = f"""with scoped as materialized (
        select seq, id, user_id, content, search_text, source from {_S}.memory_facts
        where agent_id = $1 and user_id = $4)
    select f.user_id, f.id::text, f.content, ts_rank_cd(f.search_text, q.v, 32)::float8 as score,
        f.source::text
    from scoped f, {_TSQUERY} as q(v)
    where f.search_text @@ q.v
    order by score desc, f.seq limit $3"""

_SEMANTIC_AGENT = f"""select n.user_id, n.fact_id, n.content, 1 - n.distance,
        (select f.source::text from {_S}.memory_facts f where f.id = n.fact_id::uuid)
    from {_S}.nearest_facts($1, $2::text::vector, $3, $4) n order by n.distance, n.fact_id"""
_SEMANTIC_CONTACT = f"""with scoped as materialized (
        select v.fact_id, v.embedding <=> $2::text::vector as distance
        from {_S}.memory_fact_vectors v
        where v.agent_id = $1 and v.user_id = $5 and v.model = $3)
    select f.user_id, s.fact_id::text, f.content, 1 - s.distance, f.source::text
    from scoped s join {_S}.memory_facts f on f.id = s.fact_id
    order by s.distance, s.fact_id limit $4"""

# A contact is found while anything of theirs is stored: the revision row outlives an erasure,
# so it is only the list of candidates. Matching is by substring of the lower-cased id, never
# by LIKE (no wildcard in an id can match more than itself). Matches are sorted first (`offset 0`
# keeps the planner from checking every match before sorting), then probed in that order until
# `k` pass; one EXISTS over a UNION ALL is an index probe each, where `exists .. or exists ..`
# would let the planner hash whole tables.
_IDENTIFIER = f"""select m.user_id, null, null, m.score, null from (
        select r.agent_id, r.user_id,
            case when lower(r.user_id) = q.v then 1.0
                 when starts_with(lower(r.user_id), q.v) then 0.8 else 0.6 end::float8 as score
        from {_S}.memory_revisions r, lower($2) as q(v)
        where r.agent_id = $1 and strpos(lower(r.user_id), q.v) > 0
        order by score desc, length(r.user_id), r.user_id
        offset 0) as m
    where exists (select 1 from {_S}.memory_facts f
                  where f.agent_id = m.agent_id and f.user_id = m.user_id
                  union all
                  select 1 from {_S}.memory_calls c
                  where c.agent_id = m.agent_id and c.user_id = m.user_id)
    limit $3"""

# read from a random point of the pending index onwards (wrapping around), so a fact the
# provider always rejects cannot hold back the ones after it
_PENDING_FROM = f"""select v.fact_id::text, v.content_md5, f.content
    from {_S}.memory_fact_vectors v join {_S}.memory_facts f on f.id = v.fact_id
    where v.embedding is null and v.fact_id {{}} $2::uuid order by v.fact_id limit $1"""
_PENDING = f"""({_PENDING_FROM.format(">=")}) union all ({_PENDING_FROM.format("<")}) limit $1"""
# the vector lands only if the fact still has the content it was computed from: a concurrent
# update re-checks this row (its trigger resets content_md5) and the stale vector is dropped
_STORE = f"""update {_S}.memory_fact_vectors v set model = $1, embedding = u.e::vector
    from unnest($2::uuid[], $3::text[], $4::text[]) as u(id, md5, e)
    where v.fact_id = u.id and v.content_md5 = u.md5 and v.embedding is null"""
# in batches: each statement stays within the pooled limits however many vectors there are,
# and holds its row locks (which an update of those facts waits for) only briefly
_FORGET_OTHER_MODELS = f"""update {_S}.memory_fact_vectors set model = null, embedding = null
    where fact_id in (select fact_id from {_S}.memory_fact_vectors
                      where embedding is not null and (model < $1 or model > $1) limit $2)"""
RESET_BATCH = 1000
"""Vectors of another model reset per statement."""


@dataclass(frozen=True, slots=True)
class PendingFact:
    id: str
    content_md5: str
    content: str


def _hits(rows: list[asyncpg.Record]) -> list[SearchHit]:
    # an identifier hit (one contact, no fact) has no source
    return [
        SearchHit(
            r[0], r[1], _text(r[2]), float(r[3]), None if r[1] is None else stored_source(r[4])
        )
        for r in rows
    ]


def _text(content: str | None) -> str | None:
    return None if content is None else read_text(content)


class SearchStore:
    """Lexical, semantic and identifier queries, and the fact vectors' upkeep."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool
        self._found: SearchAvailability | None = None

    async def availability(self) -> SearchAvailability:
        """Whether the fact vectors are there and writable, and if not why (read once per
        process, as the start-up line says)."""
        if self._found is None:
            async with translated(Unavailable, "search capability check"):
                self._found = await read_search_availability(self._pool)
        return self._found

    async def semantic_schema(self) -> bool:
        """Whether the vector table is there for this role to write (`availability`)."""
        return (await self.availability()).mode == "semantic"

    async def lexical(self, agent: str, user: str | None, query: str, n: int) -> list[SearchHit]:
        async with translated(Unavailable, "lexical search"):
            if user is None:
                return _hits(await self._pool.fetch(_LEXICAL_AGENT, agent, query, n))
            return _hits(await self._pool.fetch(_LEXICAL_CONTACT, agent, query, n, user))

    async def semantic(
        self, agent: str, user: str | None, vector: str, model: str, n: int
    ) -> list[SearchHit]:
        async with translated(Unavailable, "semantic search"):
            if user is None:
                return _hits(await self._pool.fetch(_SEMANTIC_AGENT, agent, vector, model, n))
            return _hits(await self._pool.fetch(_SEMANTIC_CONTACT, agent, vector, model, n, user))

    async def identifier(self, agent: str, fragment: str, n: int) -> list[SearchHit]:
        async with translated(Unavailable, "identifier search"):
            return _hits(await self._pool.fetch(_IDENTIFIER, agent, fragment, n))

    async def pending(self, n: int) -> list[PendingFact]:
        """Facts whose vector is missing (never computed, failed, or content changed)."""
        async with translated(Unavailable, "pending vectors read"):
            rows = await self._pool.fetch(_PENDING, n, str(uuid.uuid4()))
        return [PendingFact(r[0], r[1], read_text(r[2])) for r in rows]

    async def store_vectors(
        self, model: str, facts: Sequence[PendingFact], vectors: Sequence[str]
    ) -> int:
        async with translated(PersistFailed, "vector write"):
            status = await self._pool.execute(
                _STORE,
                model,
                [f.id for f in facts],
                [f.content_md5 for f in facts],
                list(vectors),
            )
        return int(status.rsplit(" ", 1)[-1])

    async def forget_other_models(self, model: str) -> int:
        """Reset vectors made by another embedding model (their space is not comparable), a
        batch per statement until none is left; returns how many were reset."""
        reset = RESET_BATCH
        total = 0
        while reset == RESET_BATCH:
            async with translated(PersistFailed, "vector reset"):
                status = await self._pool.execute(_FORGET_OTHER_MODELS, model, RESET_BATCH)
            reset = int(status.rsplit(" ", 1)[-1])
            total += reset
        return total
