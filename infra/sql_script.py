"""Pure reading of a migration file: its marker, its statements, the indexes it builds.

A migration whose first line is `-- migrate: no-transaction` runs outside a transaction, one
statement at a time (Postgres refuses `CREATE INDEX CONCURRENTLY` inside one, and a string of
several statements is one implicit transaction). Such a file must be safe to run again from the
start (`if not exists`): a crash leaves the statements before it done.
"""

from __future__ import annotations

import re

NO_TRANSACTION_MARKER = "-- migrate: no-transaction"

_DOLLAR_TAG = re.compile(r"\$(?:[A-Za-z_]\w*)?\$")
_IDENT = r'(?:"(?:[^"]|"")+"|[A-Za-z_]\w*)'
_CONCURRENT_INDEX = re.compile(
    r"create\s+(?:unique\s+)?index\s+concurrently\s+(?:if\s+not\s+exists\s+)?"
    rf"(?P<name>{_IDENT})\s+on\s+(?:only\s+)?(?:(?P<schema>{_IDENT})\s*\.\s*)?{_IDENT}",
    re.IGNORECASE,
)


def is_transactional(sql: str) -> bool:
    """False when the file's first line is the no-transaction marker."""
    first = sql.lstrip("\ufeff").split("\n", 1)[0].strip()
    return first.casefold() != NO_TRANSACTION_MARKER


def _skip_quoted(sql: str, i: int) -> int:
    """The index just past the string, identifier, comment or dollar-quoted body at `i`."""
    if sql.startswith("--", i):
        end = sql.find("\n", i)
        return len(sql) if end < 0 else end + 1
    if sql.startswith("/*", i):
        end = sql.find("*/", i + 2)
        return len(sql) if end < 0 else end + 2
    if sql[i] in "'\"":
        end = i + 1
        while True:
            end = sql.find(sql[i], end)
            if end < 0:
                return len(sql)
            if sql.startswith(sql[i] * 2, end):  # a doubled quote inside the string
                end += 2
                continue
            return end + 1
    tag = _DOLLAR_TAG.match(sql, i)
    if tag is not None:
        end = sql.find(tag.group(), tag.end())
        return len(sql) if end < 0 else end + len(tag.group())
    return i + 1


def statements(sql: str) -> list[str]:
    """The file's statements in order, split at `;` outside strings, comments and `$$` bodies;
    comment-only pieces are dropped."""
    found, start, i = [], 0, 0
    while i < len(sql):
        if sql[i] == ";":
            found.append(sql[start:i])
            start = i = i + 1
        else:
            i = _skip_quoted(sql, i)
    found.append(sql[start:])
    return [s.strip() for s in found if _code(s).strip()]


def _code(statement: str) -> str:
    """The statement without its comments (strings and bodies kept)."""
    out, i = [], 0
    while i < len(statement):
        end = _skip_quoted(statement, i)
        if not statement.startswith(("--", "/*"), i):
            out.append(statement[i:end])
        i = end
    return "".join(out)


def _unquoted(identifier: str) -> str:
    if identifier.startswith('"'):
        return identifier[1:-1].replace('""', '"')
    return identifier.lower()


def concurrent_indexes(statement: str) -> list[tuple[str | None, str]]:
    """(schema or None, name) of each index the statement builds with `CONCURRENTLY`."""
    return [
        (None if m["schema"] is None else _unquoted(m["schema"]), _unquoted(m["name"]))
        for m in _CONCURRENT_INDEX.finditer(_code(statement))
    ]
