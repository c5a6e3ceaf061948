"""Database exceptions become typed memory failures here, once, for every module running SQL.

A missing table, schema or column means the migration was not applied (`SchemaMissing`); any
other database or connection error becomes the failure the caller names (`Unavailable` for
reads and erasure, `PersistFailed` for writes). Messages name the exception type only: a
database error can quote the values it rejected.

"Database error" is every exception asyncpg raises on its own behalf: server errors
(`PostgresError`), client-side misuse and lost connections (`InterfaceError`), protocol states
it cannot recover from while a server dies (`InternalClientError`, which derives from neither),
and the transport's `OSError`, `EOFError` and `TimeoutError`.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import asyncpg

from memory.contract import MemoryFailure, SchemaMissing

DB_ERRORS = (
    asyncpg.PostgresError,
    asyncpg.InterfaceError,
    asyncpg.InternalClientError,
    OSError,
    EOFError,
    TimeoutError,
)
MISSING = (
    asyncpg.UndefinedTableError,
    asyncpg.InvalidSchemaNameError,
    asyncpg.UndefinedColumnError,
)


@contextlib.asynccontextmanager
async def translated(failure: type[MemoryFailure], what: str) -> AsyncIterator[None]:
    try:
        yield
    except MemoryFailure:
        raise
    except MISSING:
        raise SchemaMissing("the memory schema migration has not been applied") from None
    except DB_ERRORS as exc:
        raise failure(f"{what} failed: {type(exc).__name__}") from exc
