"""Database exceptions become typed memory failures here, once, for every module running SQL.

A missing table, schema or column means the migration was not applied (`SchemaMissing`); any
other database or connection error becomes the failure the caller names (`Unavailable` for
reads and erasure, `PersistFailed` for writes). Messages name the exception type only: a
database error can quote the values it rejected. A missing privilege is the exception: its
message names only the object, so it is kept, with the privilege the role needs and the docs
anchor (`infra.database_failure.privilege_words`).

"Database error" is every exception asyncpg raises on its own behalf: server errors
(`PostgresError`), client-side misuse and lost connections (`InterfaceError`), protocol states
it cannot recover from while a server dies (`InternalClientError`, which derives from neither),
and the transport's `OSError`, `EOFError` and `TimeoutError`.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import asyncpg

from infra.database_failure import privilege_words
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
    except asyncpg.InsufficientPrivilegeError as exc:  # names the object, the privilege, the docs
        raise failure(f"{what} failed: {privileges(exc, failure)}") from exc
    except DB_ERRORS as exc:
        raise failure(f"{what} failed: {type(exc).__name__}") from exc


def privileges(exc: asyncpg.InsufficientPrivilegeError, failure: type[MemoryFailure]) -> str:
    """A missing privilege in words that name the fix; a write (`PersistFailed`) needs the
    writing privileges, anything else reading ones."""
    return privilege_words(exc, writing=failure.code.endswith("persist_failed"))
