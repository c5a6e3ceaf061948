"""Whether search over facts can rank by meaning on this database, whether memory writes can
succeed, and if not, why (the reasons of `memory.search._reasons`).

Decided from what the server says (`VectorFacts`, one catalog statement) by pure functions:
pgvector installed or installable, its HNSW access method (pgvector 0.5 and later), the vector
tables the enable calls made, whether the service's role can write the fact vectors, and the
first privilege it lacks on its schema or tables. The processes log it at start-up and
`/healthz` reports it (docs/deployment.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import asyncpg
import structlog

from memory.search._reasons import (
    NO_EMBEDDING_MODEL,
    NO_HNSW,
    NO_PGVECTOR,
    NOT_ENABLED,
    NOT_WRITABLE,
    PRIVILEGE_MISSING,
    SEE,
)

log = structlog.get_logger(__name__)

_S = "stackbone_platform"
HNSW_SINCE = (0, 5)
"""pgvector's first version with the HNSW index semantic search is built on."""


@dataclass(frozen=True, slots=True)
class VectorFacts:
    """What the server says about pgvector, the vector tables and the role's privileges."""

    table: bool  # the fact vectors' table exists (an enable call succeeded)
    writable: bool  # the current role may insert and update it
    installed: bool  # `vector` is created in this database
    available: str | None  # the version `create extension vector` would install, if any
    hnsw: bool  # the HNSW access method exists in this database
    documents: bool = False  # document chunks have their vector column
    missing: str | None = None  # the first privilege the role lacks, e.g. `INSERT on table x`


@dataclass(frozen=True, slots=True)
class SearchAvailability:
    mode: Literal["semantic", "lexical"]
    reason: str | None  # why not (fully) semantic; None when nothing is missing


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in text.split(".") if p.isdigit())


def _vectors_missing(facts: VectorFacts) -> str:
    """Why a vector table is not there: the first thing missing."""
    if facts.installed:
        return NOT_ENABLED if facts.hnsw else NO_HNSW
    if facts.available is None:
        return NO_PGVECTOR
    return NO_HNSW if _version(facts.available) < HNSW_SINCE else NOT_ENABLED


def search_availability(facts: VectorFacts) -> SearchAvailability:
    """Semantic when the vector table exists and the role can write it; otherwise lexical, with
    the first thing missing (a table of another role: `vectors_not_writable`)."""
    if facts.table:
        return SearchAvailability(*(("semantic", None) if facts.writable else _UNWRITABLE))
    return SearchAvailability("lexical", _vectors_missing(facts))


_UNWRITABLE: tuple[Literal["lexical"], str] = ("lexical", NOT_WRITABLE)


def document_vectors_missing(facts: VectorFacts) -> str | None:
    """Why documents cannot be embedded here (None: their vectors are enabled)."""
    return None if facts.documents else _vectors_missing(facts)


def with_model(found: SearchAvailability, model: str | None) -> SearchAvailability:
    """What a search will do, given the database's availability and the embedding model: the
    database's reason first, then the model's."""
    if found.mode == "semantic" and model is None:
        return SearchAvailability("lexical", NO_EMBEDDING_MODEL)
    return found


def write_problem(facts: VectorFacts) -> str | None:
    """Why memory writes cannot succeed here (None: nothing known to stop them)."""
    if facts.missing is not None:
        return PRIVILEGE_MISSING
    if facts.table and not facts.writable:
        return NOT_WRITABLE
    return None


VECTOR_FACTS_SQL = f"""
with t as (select to_regclass('{_S}.memory_fact_vectors') as oid),
    ns as (select oid from pg_namespace where nspname = '{_S}')
select t.oid is not null as table,
    coalesce(has_table_privilege(t.oid, 'INSERT') and has_table_privilege(t.oid, 'UPDATE'), false)
        as writable,
    exists(select 1 from pg_extension where extname = 'vector') as installed,
    (select default_version from pg_available_extensions where name = 'vector') as available,
    exists(select 1 from pg_am where amname = 'hnsw') as hnsw,
    exists(select 1 from pg_attribute where attrelid = to_regclass('{_S}.doc_chunks')
        and attname = 'embedding' and not attisdropped) as documents,
    coalesce(
        (select 'USAGE on schema {_S}' from ns where not has_schema_privilege(ns.oid, 'USAGE')),
        (select format('%s on table {_S}.%I', p.name, c.relname)
            from pg_class c join ns on c.relnamespace = ns.oid
            cross join unnest(array['SELECT', 'INSERT', 'UPDATE', 'DELETE']) p(name)
            where c.relkind in ('r', 'p') and c.relname <> 'memory_fact_vectors'
                and not has_table_privilege(c.oid, p.name)
            order by c.relname, p.name limit 1)) as missing
from t"""


async def read_vector_facts(db: asyncpg.Pool | asyncpg.Connection) -> VectorFacts:
    """What the database `db` reaches says, as its role (one statement)."""
    row = await db.fetchrow(VECTOR_FACTS_SQL)
    assert row is not None
    return VectorFacts(**dict(row))


async def read_search_availability(
    db: asyncpg.Pool | asyncpg.Connection,
) -> SearchAvailability:
    """The search availability of the database `db` reaches, as its role (one statement)."""
    return search_availability(await read_vector_facts(db))


def log_search_availability(found: SearchAvailability) -> None:
    """One start-up line: how search ranks here and, when not by meaning, why."""
    if found.reason is None:
        log.info("search.semantic")
    elif found.reason == NOT_WRITABLE:  # vectors exist but this role cannot write them
        log.error("search.vectors_not_writable", reason=found.reason, see=SEE)
    else:
        log.warning("search.lexical_only", reason=found.reason, see=SEE)
