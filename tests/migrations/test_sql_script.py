"""Reading a migration file (pure): the no-transaction marker, statements, concurrent indexes."""

from __future__ import annotations

import pytest

from infra.long_ops import LongOpLimits, lock_wait_message, retry_delay
from infra.migrate import available
from infra.sql_script import concurrent_indexes, is_transactional, statements


def test_only_a_first_line_marker_makes_a_migration_non_transactional() -> None:
    assert not is_transactional("-- migrate: no-transaction\ncreate index concurrently i on t (x);")
    assert not is_transactional("  -- MIGRATE: no-transaction  \r\nselect 1")
    assert is_transactional("select 1;\n-- migrate: no-transaction\n")
    assert is_transactional("-- migrate: no-transactions\nselect 1")
    assert is_transactional("")


def test_a_shipped_migration_leaves_the_transaction_only_to_build_an_index_and_can_rerun() -> None:
    """The only reason to run outside a transaction is `CREATE INDEX CONCURRENTLY` on a table
    calls write (0031: call records by agent and age); every statement of such a file can run
    again after a crash."""
    for migration in available():
        if not migration.transactional:
            assert concurrent_indexes(migration.sql), migration.label
            for statement in statements(migration.sql):
                assert "if not exists" in statement.casefold(), (migration.label, statement)


def test_statements_split_outside_strings_comments_and_dollar_bodies() -> None:
    sql = """-- a comment; with a semicolon
create function f() returns text language sql as $$ select 'a;b' $$;
select 'it''s; one';  /* a; block */ select "odd;name" from t;
do $body$ begin perform 1; end $body$;
-- trailing comment only
"""
    assert statements(sql) == [
        "-- a comment; with a semicolon\ncreate function f() returns text language sql"
        " as $$ select 'a;b' $$",
        "select 'it''s; one'",
        '/* a; block */ select "odd;name" from t',
        "do $body$ begin perform 1; end $body$",
    ]
    assert statements("select $1 from t; select 2") == ["select $1 from t", "select 2"]
    assert statements("-- nothing\n;\n") == []


@pytest.mark.parametrize(
    ("statement", "found"),
    [
        ("create index concurrently i on t (x)", [(None, "i")]),
        ("CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS Idx ON s.t (x)", [("s", "idx")]),
        ('create index concurrently "My Idx" on only "S"."T" (x)', [("S", "My Idx")]),
        ("-- create index concurrently gone on t (x)\nselect 1", []),
        ("create index i on t (x)", []),  # not concurrent: inside a transaction, atomic
        ("select 'create index concurrently fake on t (x)'", [(None, "fake")]),
    ],
)
def test_concurrent_index_names_and_schemas(
    statement: str, found: list[tuple[str | None, str]]
) -> None:
    assert concurrent_indexes(statement) == found


def test_a_lock_wait_message_is_one_line_naming_the_wait_and_the_tries() -> None:
    once = lock_wait_message("migration 0009_x", LongOpLimits(lock_seconds=1, lock_attempts=1))
    assert once == (
        "migration 0009_x: gave up waiting for a lock held by another transaction"
        " (lock_timeout 1 s, tried once); end that transaction or retry later"
    )
    assert "tried 5 times" in lock_wait_message("m", LongOpLimits())


def test_retries_wait_longer_each_time_up_to_ten_seconds() -> None:
    assert [retry_delay(a) for a in range(1, 7)] == [1.0, 2.0, 4.0, 8.0, 10.0, 10.0]


def test_at_least_one_attempt() -> None:
    with pytest.raises(ValueError, match="lock_attempts: must be at least 1"):
        LongOpLimits(lock_attempts=0)
