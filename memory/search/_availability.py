"""Whether search over facts can rank by meaning on this database, and if not, why.

Decided once from what the server has (`vector_facts`, one catalog statement) by a pure
function: pgvector installed or installable, its HNSW access method (pgvector 0.5 and later),
the vector table an enable call made, and whether the service's role can write that table. The
processes log it at start-up and `/healthz` reports it (docs/deployment.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import asyncpg
import structlog

log = structlog.get_logger(__name__)

_S = "stackbone_platform"
HNSW_SINCE = (0, 5)
"""pgvector's first version with the HNSW index semantic search is built on."""

NO_PGVECTOR = "vector_extension_missing"
NO_HNSW = "vector_without_hnsw"
NOT_ENABLED = "semantic_search_not_enabled"
NOT_WRITABLE = "vectors_not_writable"


@dataclass(frozen=True, slots=True)
class VectorFacts:
    """What the server says about pgvector and the fact vectors (`vector_facts`)."""

    table: bool  # the fact vectors' table exists (an enable call succeeded)
    writable: bool  # the current role may insert and update it
    installed: bool  # `vector` is created in this database
    available: str | None  # the version `create extension vector` would install, if any
    hnsw: bool  # the HNSW access method exists in this database


@dataclass(frozen=True, slots=True)
class SearchAvailability:
    mode: Literal["semantic", "lexical"]
    reason: str | None  # why not (fully) semantic; None when nothing is missing


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in text.split(".") if p.isdigit())


def search_availability(facts: VectorFacts) -> SearchAvailability:
    """Semantic when the vector table exists (and says so when the role cannot write it);
    otherwise lexical, with the first thing missing."""
    if facts.table:
        return SearchAvailability("semantic", None if facts.writable else NOT_WRITABLE)
    if facts.installed:
        return SearchAvailability("lexical", NOT_ENABLED if facts.hnsw else NO_HNSW)
    if facts.available is None:
        return SearchAvailability("lexical", NO_PGVECTOR)
    if _version(facts.available) < HNSW_SINCE:
        return SearchAvailability("lexical", NO_HNSW)
    return SearchAvailability("lexical", NOT_ENABLED)


VECTOR_FACTS_SQL = f"""
with t as (select to_regclass('{_S}.memory_fact_vectors') as oid)
select t.oid is not null as table,
    coalesce(has_table_privilege(t.oid, 'INSERT') and has_table_privilege(t.oid, 'UPDATE'), false)
        as writable,
    exists(select 1 from pg_extension where extname = 'vector') as installed,
    (select default_version from pg_available_extensions where name = 'vector') as available,
    exists(select 1 from pg_am where amname = 'hnsw') as hnsw
from t"""


async def read_search_availability(
    db: asyncpg.Pool | asyncpg.Connection,
) -> SearchAvailability:
    """The search availability of the database `db` reaches, as its role (one statement)."""
    row = await db.fetchrow(VECTOR_FACTS_SQL)
    assert row is not None
    return search_availability(VectorFacts(**dict(row)))


def log_search_availability(found: SearchAvailability) -> None:
    """One start-up line: how search ranks here and, when not by meaning, why."""
    if found.reason is None:
        log.info("search.semantic")
    elif found.mode == "semantic":  # vectors exist but this role cannot write them
        log.error("search.vectors_not_writable", reason=found.reason, see=_SEE)
    else:
        log.warning("search.lexical_only", reason=found.reason, see=_SEE)


_SEE = "docs/deployment.md#your-own-postgres"
