"""`caller-memory memory ...`: migrate, add, recall, history, delete-all, export, search, ops,
customers and retention.

Each prints the HTTP API's body for the same request (`worker.http.server.answers`) as JSON on
stdout; logs carry no memory text. The agent id is any memory scope (not only a catalog agent),
as the library's API allows.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import asyncpg
import typer

from callmemory import environment
from callmemory.config import long_op_limits, memory_config, pool_timeouts
from infra import tracing
from infra.database import command_database_url, create_pool
from infra.database_failure import FAILURES, failure_line, migrations_variable
from infra.embedded import EmbeddedStartFailed
from infra.logs import configure_logging
from infra.long_ops import ThroughPooler
from infra.migrate import MigrationLockTimeout, run_migrations
from memory.api import Memory, open_memory
from memory.config import ConfigError, MemoryConfig
from memory.contract import (
    DEFAULT_RECALL_CALLS,
    CursorExpired,
    ErrorInfo,
    MemoryFailure,
    Result,
    requests,
    strict_json,
)
from memory.search import DEFAULT_K, DEFAULT_MODE, SEARCH_MODES
from memory.settings import RETENTION_KINDS, parse_retention
from memory.store import (
    DEFAULT_CUSTOMERS,
    DEFAULT_LIMIT,
    DEFAULT_READS,
    MAX_CURSOR,
    MAX_CUSTOMERS,
    MAX_LIMIT,
    MAX_READS,
    MemoryStore,
    Read,
    customers_after,
    export_person,
    load_retention,
    ops_after,
    reads_of,
    record_read,
    save_retention,
)
from worker.http.server import answers
from worker.refusal import EXIT_FAILED, EXIT_USAGE, Refused, refused

T = TypeVar("T")
CLI_CHANNEL = "cli"
"""The channel of what `memory add` writes (`memory.contract.Source.channel`)."""
memory_app = typer.Typer(
    help="Operate on caller memory directly (JSON on stdout).", no_args_is_help=True
)

AgentArg = Annotated[str, typer.Argument(help="the agent id (memory scope)")]
UserArg = Annotated[str, typer.Argument(help="the caller's user id, e.g. a phone number")]


def _print(body: dict[str, Any]) -> None:
    print(strict_json.utf8_json(body, indent=2))  # a lone surrogate a model wrote: its `\\u` escape


Work = Callable[[asyncpg.Pool, MemoryConfig], Awaitable[dict[str, Any] | None]]
"""A command's work: the body to print, or None when it wrote its own output."""


def run_with_pool(work: Work) -> None:
    """`_run`, for the other command groups (`caller-memory docs ...`)."""
    _run(work)


def _run(work: Work) -> None:
    """Read the configuration (every bad variable named at once), open a pool, do the work."""
    settings = environment.read()  # the command's one read of its environment
    configure_logging(install_handler=True, fmt=settings.log_format)
    tracing.configure(settings.otel_exporter_otlp_endpoint)
    try:
        body = asyncio.run(_with_pool(work, settings))
    except EmbeddedStartFailed as exc:
        raise Refused(EXIT_FAILED, str(exc)) from None
    except FAILURES as exc:  # one line naming DATABASE_URL and the cause
        line = failure_line(exc, "DATABASE_URL", settings.database_url)
        raise Refused(EXIT_FAILED, line) from None
    if body is not None:
        _print(body)


async def _with_pool(work: Work, settings: environment.Environment) -> dict[str, Any] | None:
    url = command_database_url(settings.database_url, settings.memory_pgdata)
    pool = await create_pool(url, timeouts=pool_timeouts(settings))
    try:
        return await work(pool, memory_config(settings))
    finally:
        await pool.close()


CLI_READER = "cli"
"""Who a read made with the CLI is recorded as (its channel too)."""


def _read(agent_id: str, user_id: str, route: str, returned: dict[str, int]) -> Read:
    return Read(agent_id, user_id, CLI_READER, CLI_READER, route, returned)


def _with_memory(
    call: Callable[[Memory], Awaitable[Result[T]]],
    body: Callable[[T], dict[str, Any]],
    read: Callable[[T], Read] | None = None,
) -> Work:
    """`read`: the record of the person's memory this command read (recall, history)."""

    async def work(pool: asyncpg.Pool, config: MemoryConfig) -> dict[str, Any]:
        memory = open_memory(MemoryStore(pool), config)
        try:
            result = await call(memory)
            if result.data is not None and read is not None:
                await memory.note_read(read(result.data))
        finally:
            await memory.aclose()  # after the vectors of what an add just saved
        if result.error is not None:
            raise refused(result.error)
        assert result.data is not None
        return body(result.data)

    return work


@memory_app.command()
def migrate() -> None:
    """Apply pending schema migrations."""

    settings = environment.read()  # the command's one read of its environment
    configure_logging(install_handler=True, fmt=settings.log_format)

    async def work() -> dict[str, Any]:
        url = command_database_url(settings.long_op_url, settings.memory_pgdata)
        return {"applied": await run_migrations(url, long_op_limits(settings))}

    try:
        body = asyncio.run(work())
    except ConfigError as exc:  # only a pooler's address is known
        raise Refused(EXIT_FAILED, str(exc)) from None
    except (MigrationLockTimeout, ThroughPooler, EmbeddedStartFailed) as exc:
        raise Refused(EXIT_FAILED, str(exc)) from None
    except FAILURES as exc:  # one line naming the variable, the migration and the cause
        direct = settings.database_direct_url
        line = failure_line(exc, migrations_variable(direct), direct or settings.database_url)
        raise Refused(EXIT_FAILED, line) from None
    _print(body)


@memory_app.command()
def recall(
    agent_id: AgentArg,
    user_id: UserArg,
    calls: Annotated[int, typer.Option(help="recent calls to show")] = DEFAULT_RECALL_CALLS,
) -> None:
    """Print a person's facts and recent calls."""
    _run(
        _with_memory(
            lambda m: m.recall(agent_id, user_id, calls),
            lambda data: answers.CustomerMemory.of(agent_id, user_id, data).wire(),
            lambda data: _read(
                agent_id, user_id, "recall", {"facts": len(data.facts), "calls": len(data.calls)}
            ),
        )
    )


@memory_app.command()
def history(agent_id: AgentArg, user_id: UserArg) -> None:
    """Print every kept version of a person's facts."""
    _run(
        _with_memory(
            lambda m: m.history(agent_id, user_id),
            lambda data: answers.FactHistory.of(agent_id, user_id, data).wire(),
            lambda data: _read(agent_id, user_id, "history", {"versions": len(data.versions)}),
        )
    )


def _transcript(path: Path) -> object:
    """A text file, or a JSON list of `{"role", "content"}` messages (see examples/)."""
    try:
        text = path.read_text("utf-8")
        return strict_json.loads(text) if path.suffix == ".json" else text
    except (OSError, UnicodeDecodeError) as exc:
        raise Refused(
            EXIT_USAGE, f"transcript: cannot read {path} ({type(exc).__name__})"
        ) from None
    except strict_json.JsonRejected as rejected:  # a bad number too: never a traceback
        raise Refused(EXIT_USAGE, f"transcript: {rejected}") from None


@memory_app.command()
def add(
    agent_id: AgentArg,
    user_id: UserArg,
    transcript: Annotated[Path, typer.Argument(help="a text file, or a JSON list of messages")],
    instructions: Annotated[str | None, typer.Option(help="extraction instructions")] = None,
) -> None:
    """Extract and save memory from a transcript (one model call)."""
    content = _transcript(transcript)
    _run(
        _with_memory(
            lambda m: m.add(content, agent_id, user_id, {"channel": CLI_CHANNEL}, instructions),
            lambda data: answers.Added.of(agent_id, user_id, data).wire(),
        )
    )


@memory_app.command("delete-all")
def delete_all(agent_id: AgentArg, user_id: UserArg) -> None:
    """Erase one person's memory for one agent."""
    _run(
        _with_memory(
            lambda m: m.delete_all(agent_id, user_id),
            lambda data: answers.Erased.of(agent_id, user_id, data).wire(),
        )
    )


@memory_app.command()
def export(agent_id: AgentArg, user_id: UserArg) -> None:
    """Print everything held about one person under one agent as one JSON document (as the
    export route; streamed a page of rows at a time, so any size fits in memory)."""

    async def work(pool: asyncpg.Pool, _: MemoryConfig) -> None:
        counted: dict[str, int] = {}
        try:
            scope = requests.agent_id(agent_id), requests.user_id(user_id)
            pieces = export_person(pool, *scope, counted=counted)
            async with contextlib.aclosing(pieces):
                async for piece in pieces:
                    sys.stdout.write(piece)
            sys.stdout.write("\n")
            await record_read(pool, _read(*scope, "export", counted))
        except MemoryFailure as failure:  # mid-way: the document printed so far stays cut
            raise refused(ErrorInfo(failure.code, failure.message, failure.field)) from None

    _run(work)


@memory_app.command()
def search(
    agent_id: AgentArg,
    query: Annotated[str, typer.Argument(help="words to find")],
    user: Annotated[str | None, typer.Option(help="search this person only")] = None,
    k: Annotated[int, typer.Option(help="results to return")] = DEFAULT_K,
    mode: Annotated[str, typer.Option(help=", ".join(SEARCH_MODES))] = DEFAULT_MODE,
) -> None:
    """Search the facts of one person or of every person."""
    _run(
        _with_memory(
            lambda m: m.search(agent_id, query, user, k, mode),
            lambda data: answers.SearchResults.of(agent_id, user, data).wire(),
        )
    )


@memory_app.command()
def ops(
    agent_id: AgentArg,
    after: Annotated[int, typer.Option(min=0, max=MAX_CURSOR, help="events after this cursor")] = 0,
    limit: Annotated[
        int, typer.Option(min=1, max=MAX_LIMIT, help="events to return")
    ] = DEFAULT_LIMIT,
) -> None:
    """Print an agent's memory.ops events after a cursor, oldest first (as GET /api/memory/ops)."""

    async def work(pool: asyncpg.Pool, _: MemoryConfig) -> dict[str, Any]:
        try:
            events = await ops_after(pool, agent_id, after, limit)
        except CursorExpired as exc:  # exit 2, like the route's 410, naming where to resume
            raise refused(ErrorInfo(exc.code, exc.message, exc.field)) from None
        cursor = events[-1]["id"] if events else after
        return answers.OpsLog(agent_id=agent_id, events=events, next=cursor).wire()

    _run(work)


@memory_app.command()
def customers(
    agent_id: AgentArg,
    after: Annotated[
        str, typer.Option(help="the user id the previous page ended with (its `next`)")
    ] = "",
    limit: Annotated[
        int, typer.Option(min=1, max=MAX_CUSTOMERS, help="customers to return")
    ] = DEFAULT_CUSTOMERS,
) -> None:
    """List an agent's customers (people with facts or calls) in user id order, a page at a time.

    `next` is the user id to pass as --after for the next page; null on the last page.
    """

    async def work(pool: asyncpg.Pool, _: MemoryConfig) -> dict[str, Any]:
        page = await customers_after(pool, agent_id, after, limit)
        return answers.Customers.page(agent_id, page, limit).wire()

    _run(work)


CLI_ACTOR = "cli"
"""Who the activity log names for a change made with the CLI."""
DaysOption = Annotated[
    str | None, typer.Option(help="days to keep, or none: until deleted", metavar="DAYS|none")
]


def _days(kind: str, value: str) -> int | str | None:
    """`none` is None; a whole number its int; anything else stays text (refused, naming the
    kind, by `parse_retention`)."""
    if value.strip().casefold() == "none":
        return None
    try:
        return int(value)
    except ValueError:
        return value


@memory_app.command()
def retention(
    agent_id: AgentArg,
    *,
    calls: DaysOption = None,
    sessions: DaysOption = None,
    ops: DaysOption = None,
    reads: DaysOption = None,
    journals: DaysOption = None,
) -> None:
    """Show how long the agent keeps each kind of record; with options, change those kinds
    (facts are kept until the person or the model deletes them)."""
    given = {"calls": calls, "sessions": sessions, "ops": ops, "reads": reads, "journals": journals}
    body = {kind: _days(kind, value) for kind, value in given.items() if value is not None}
    try:
        update = parse_retention(body) if body else None
    except MemoryFailure as failure:
        raise refused(ErrorInfo(failure.code, failure.message, failure.field)) from None
    assert tuple(given) == RETENTION_KINDS

    async def work(pool: asyncpg.Pool, _: MemoryConfig) -> dict[str, Any]:
        if update is None:
            kept = await load_retention(pool, agent_id)
        else:
            kept = await save_retention(pool, agent_id, update, CLI_ACTOR)
        return answers.RetentionSettings.of(agent_id, kept).wire()

    _run(work)


@memory_app.command()
def reads(
    agent_id: AgentArg,
    user_id: UserArg,
    limit: Annotated[int, typer.Option(min=1, max=MAX_READS, help="reads to list")] = DEFAULT_READS,
) -> None:
    """List who read a person's memory, newest first: when, who, channel, route, counts (as
    POST /api/memory/customers/{agentId}/reads)."""

    async def work(pool: asyncpg.Pool, _: MemoryConfig) -> dict[str, Any]:
        try:
            user = requests.user_id(user_id)
        except MemoryFailure as failure:
            raise refused(ErrorInfo(failure.code, failure.message, failure.field)) from None
        found = await reads_of(pool, agent_id, user, limit)
        return answers.Reads.of(agent_id, user, found).wire()

    _run(work)
