"""A used test database put back to the migrated template's state, when only its rows changed.

Cloning the template (`CREATE DATABASE ... TEMPLATE`, about 9 MB of catalogs) costs a test
several hundred milliseconds on a busy machine; emptying the tables a test wrote costs a few.
A database is reused only when its schema is provably the template's: every catalog of the
database holds as many rows as the template's, and none newer than the template's newest (a
`CREATE`, `ALTER`, `GRANT` or `DROP` writes or removes catalog rows). Then every table is
emptied with triggers and foreign keys off (`session_replication_role = replica`, a superuser's
setting), the template's own rows are copied back, and every sequence is set to the template's
value. Anything else (a changed schema, a prepared transaction, an error) answers "not clean"
and the caller drops the database instead. Statistics (`pg_statistic`) are not compared: a
reused database may keep the planner's statistics of the rows it held.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

import asyncpg

# database-local catalogs whose rows are the schema; statistics change without a schema change
_CATALOGS = """select c.oid::regclass::text from pg_class c
    where c.relnamespace = 'pg_catalog'::regnamespace and c.relkind = 'r' and not c.relisshared
      and c.relname not in ('pg_statistic', 'pg_statistic_ext_data', 'pg_largeobject')
    order by c.relname"""
_TABLES = """select n.nspname, c.relname from pg_class c
    join pg_namespace n on n.oid = c.relnamespace
    where c.relkind in ('r', 'p') and c.relpersistence <> 't'
      and n.nspname not in ('pg_catalog', 'information_schema') and n.nspname !~ '^pg_'
    order by 1, 2"""
_SEQUENCES = """select format('%I.%I', schemaname, sequencename), coalesce(last_value, start_value),
    last_value is not null from pg_sequences order by 1"""
_SET_SEQUENCES = """select setval(s::regclass, v, c)
    from unnest($1::text[], $2::bigint[], $3::bool[]) as t(s, v, c)"""
_PREPARED = "select count(*) from pg_prepared_xacts where database = current_database()"


@dataclass(frozen=True)
class Baseline:
    """What a clean database looks like: read once from the template."""

    fingerprint_sql: str
    counts: tuple[int, ...]
    newest: int
    tables: tuple[tuple[str, str], ...]  # (schema, table)
    rows: tuple[tuple[str, str, bytes], ...]  # the template's own rows per table, binary COPY
    sequences: tuple[tuple[str, ...], tuple[int, ...], tuple[bool, ...]]  # names, values, called


def fingerprint_query(catalogs: list[str]) -> str:
    """One statement: each catalog's row count, and the newest row's transaction id of all."""
    counts = ", ".join(f"(select count(*) from {c})" for c in catalogs)
    newest = ", ".join(f"(select max(xmin::text::bigint) from {c})" for c in catalogs)
    return f"select array[{counts}]::bigint[], coalesce(greatest({newest}), 0), ({_PREPARED})"


async def capture(template: asyncpg.Connection) -> Baseline:
    """The template's schema fingerprint, rows and sequences."""
    catalogs = [r[0] for r in await template.fetch(_CATALOGS)]
    query = fingerprint_query(catalogs)
    counts, newest, _ = await _one_row(template, query)
    tables = tuple((r[0], r[1]) for r in await template.fetch(_TABLES))
    rows = []
    for schema, table in tables:
        sink = io.BytesIO()
        await template.copy_from_table(table, schema_name=schema, output=sink, format="binary")
        if await template.fetchval(f"select exists (select from {_name(schema, table)})"):
            rows.append((schema, table, sink.getvalue()))
    found = await template.fetch(_SEQUENCES)
    sequences = (tuple(r[0] for r in found), tuple(r[1] for r in found), tuple(r[2] for r in found))
    return Baseline(query, tuple(counts), newest, tables, tuple(rows), sequences)


async def reset(conn: asyncpg.Connection, baseline: Baseline) -> bool:
    """Empty a used database back to the template's rows; False (nothing changed) if its schema
    is not the template's. Needs a superuser, and no other session on the database."""
    counts, newest, prepared = await _one_row(conn, baseline.fingerprint_sql)
    if tuple(counts) != baseline.counts or newest > baseline.newest or prepared:
        return False
    async with conn.transaction():
        await conn.execute("set local session_replication_role = replica")
        await conn.execute("".join(f"delete from {_name(*t)};" for t in baseline.tables))
        for schema, table, data in baseline.rows:
            await conn.copy_to_table(
                table, schema_name=schema, source=io.BytesIO(data), format="binary"
            )
        await conn.execute(_SET_SEQUENCES, *baseline.sequences)
    return True


def _name(schema: str, table: str) -> str:
    """`schema.table`, each quoted."""
    return ".".join('"' + part.replace('"', '""') + '"' for part in (schema, table))


async def _one_row(conn: asyncpg.Connection, query: str) -> asyncpg.Record:
    row = await conn.fetchrow(query)
    assert row is not None  # an aggregate always answers one row
    return row
