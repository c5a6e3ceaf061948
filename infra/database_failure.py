"""A database failure as one line naming the variable, the server and the cause.

Every boundary that starts on a database (the CLI, the web process, the worker's main process)
turns a refused connection, a wrong password, a missing privilege or a failed migration into
`DatabaseFailed` (`naming`), whose message is one line: the variable (`DATABASE_URL`), its URL
with the password masked, and the cause in Postgres's own words. No traceback, no password.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import asyncpg

PRIVILEGES_HINT = "the role's privileges are listed in docs/deployment.md#your-own-postgres"


class MigrationFailed(Exception):
    """A migration (or the version table) failed; the message names it and carries Postgres's."""

    def __init__(self, what: str, cause: asyncpg.PostgresError) -> None:
        super().__init__(f"{what} failed: {_postgres_words(cause)}")
        self.cause = cause


class DatabaseFailed(Exception):
    """A boundary's database failure; `str()` is the one line to print."""


FAILURES: tuple[type[BaseException], ...] = (
    OSError,
    TimeoutError,
    asyncpg.PostgresError,
    asyncpg.InterfaceError,
    MigrationFailed,
)
"""What a boundary translates (`naming`): connecting, authenticating, migrating, querying."""


def masked(url: str) -> str:
    """`url` with its password (in the address or as `?password=`) replaced by `***`."""
    try:
        parts = urlsplit(url)
        if parts.password is not None:
            user, _, host = parts.netloc.rpartition("@")
            parts = parts._replace(netloc=f"{user.partition(':')[0]}:***@{host}")
    except ValueError:  # an unparsable port: show nothing that could hold a secret
        return "<unparsable URL>"
    query = [(k, "***" if k == "password" else v) for k, v in parse_qsl(parts.query, True)]
    return urlunsplit(parts._replace(query=urlencode(query, safe="/*")))


_NEEDS = {
    "schema": "USAGE",
    "function": "EXECUTE",
    "procedure": "EXECUTE",
    "sequence": "USAGE",
    "database": "CONNECT (and CREATE for the first migration)",
}
_TABLE_NEEDS = {False: "SELECT", True: "SELECT, INSERT, UPDATE and DELETE"}


def privilege_words(exc: asyncpg.InsufficientPrivilegeError, *, writing: bool) -> str:
    """A missing privilege as what a fix needs: Postgres's words (`permission denied for table
    memory_facts`), the privilege the role needs on that object, and the docs anchor. Only
    object names travel (a privilege error quotes no values)."""
    message = str(exc.args[0] if exc.args else exc).splitlines()[0]
    kind, _, name = message.removeprefix("permission denied for ").partition(" ")
    needs = _NEEDS.get(kind) or (_TABLE_NEEDS[writing] if kind in _TABLES else None)
    if needs is None or not name:
        return f"{message} ({PRIVILEGES_HINT})"
    return f"{message}: the role needs {needs} on {kind} {name} ({PRIVILEGES_HINT})"


_TABLES = ("table", "relation", "view", "materialized")


def _postgres_words(exc: asyncpg.PostgresError) -> str:
    message = str(exc.args[0] if exc.args else exc).splitlines()[0]
    if isinstance(exc, asyncpg.InsufficientPrivilegeError):
        return f"{message} ({PRIVILEGES_HINT})"
    return message


_OS_CAUSES: tuple[tuple[type[BaseException], str], ...] = (
    (ConnectionRefusedError, "connection refused (is the server running and listening there?)"),
    (FileNotFoundError, "no server socket there (is the server running?)"),
    (TimeoutError, "no answer in time (connection timed out)"),
)


def _os_words(exc: BaseException) -> str:
    if isinstance(exc, socket.gaierror):
        return f"host not found ({exc.strerror})"
    if "[Errno 111]" in str(exc):  # asyncpg tried every address of the host
        return _OS_CAUSES[0][1]
    found = next((words for kind, words in _OS_CAUSES if isinstance(exc, kind)), None)
    if found is not None:
        return found
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror.lower()
    first = str(exc).splitlines()[0] if str(exc) else "no detail"
    return f"{type(exc).__name__}: {first}"


def cause(exc: BaseException) -> str:
    """The cause of a database failure in a few words (Postgres's own for a server error)."""
    if isinstance(exc, MigrationFailed):
        return str(exc)
    if isinstance(exc, asyncpg.PostgresError):
        return _postgres_words(exc)
    return _os_words(exc)


EMBEDDED = "the embedded server (DATABASE_URL unset)"


def failure_line(exc: BaseException, variable: str, url: str | None) -> str:
    """One line: `DATABASE_URL=postgresql://me:***@db:5432/app: <cause>` (`url` None: the
    embedded server, whose address is no variable of the operator's)."""
    where = EMBEDDED if url is None else f"{variable}={masked(url)}"
    return f"{where}: {cause(exc)}"


def migrations_variable(direct_url: str | None) -> str:
    """The variable naming the server migrations run on: the direct one when it is set."""
    return "DATABASE_URL" if direct_url is None else "DATABASE_DIRECT_URL"


@contextmanager
def naming(variable: str, url: str | None) -> Iterator[None]:
    """Inside, a database failure becomes `DatabaseFailed` naming `variable` and `url`."""
    try:
        yield
    except FAILURES as exc:
        raise DatabaseFailed(failure_line(exc, variable, url)) from exc
