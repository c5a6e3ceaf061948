"""One person's export: everything held about them under one agent, as one JSON document.

    POST /api/memory/customers/{agentId}/export   {"userId": "+34 611 22 33 44"}   (memory:read)

The document (`answers.MemoryExport`, written by `memory.store.export_person`) is streamed as
it is read, a page of rows at a time, so a person with years of calls is never held in memory.
The scope is `memory:read`: a key that can read a person's facts, history, sessions and ops
events can already read all of it piece by piece; the export only puts it in one place.

The person and the first database step are checked before the answer starts, so a bad body is
a 400 and a database that does not answer a 503, as on every route. Each database step is then
bounded by the web process's deadline; a failure after the answer started cuts the document
short (its JSON does not close), and the client reads a truncated body, never a complete-looking
one.

At most `WEB_MAX_EXPORTS` exports stream at once in a process (`ExportSlots`), so slow ones
(a large person, a client that reads slowly) never hold the whole pool: one more is refused at
once, before any database work, with `429 export_busy` and `Retry-After: 1`. The slot is given
back however the export ends: finished, cut by the database, or the client gone.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import structlog
from aiohttp import web

from memory.contract import MemoryFailure, requests
from memory.store import export_person
from worker.http.routes.customers import PersonBody
from worker.http.server import answers
from worker.http.server.context import DATABASE_DEADLINE, POOL, Route, agent_of
from worker.http.server.failures import ExportsBusy
from worker.http.server.reads import note_read
from worker.http.server.request_body import parse_body, read_json

log = structlog.get_logger(__name__)
PATH = "/api/memory/customers/{agentId}/export"
FILENAME = "memory-export.json"


@dataclass(slots=True)
class ExportSlots:
    """The exports a process streams at once: at most `limit`; one more is `ExportsBusy`."""

    limit: int
    _free: asyncio.Semaphore = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._free = asyncio.Semaphore(self.limit)

    @property
    def full(self) -> bool:
        return self._free.locked()

    @contextlib.asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        """One export's place, given back however it ends; refused at once when none is free
        (never waited for: a waiting export would hold its client as long as the others)."""
        if self._free.locked():
            raise ExportsBusy(self.limit)
        async with self._free:  # free, so taken without waiting
            yield


EXPORT_SLOTS = web.AppKey("export_slots", ExportSlots)


async def export(request: web.Request) -> web.StreamResponse:
    agent = agent_of(request, request.match_info["agentId"])
    body = parse_body(PersonBody, await read_json(request))
    user_id = requests.user_id(body.user_id)
    async with request.app[EXPORT_SLOTS].slot():
        response = await _stream(request, agent.name, user_id)
    return response


async def _stream(request: web.Request, agent_id: str, user_id: str) -> web.StreamResponse:
    counted: dict[str, int] = {}
    pieces = export_person(
        request.app[POOL],
        agent_id,
        user_id,
        step_seconds=request.app[DATABASE_DEADLINE],
        counted=counted,
    )
    async with contextlib.aclosing(pieces):
        head = await anext(pieces)  # before the answer starts: a failure is an error answer
        response = web.StreamResponse(
            headers={
                "Cache-Control": "no-store",
                "Content-Disposition": f'attachment; filename="{FILENAME}"',
            }
        )
        response.content_type = "application/json"
        response.charset = "utf-8"
        await response.prepare(request)
        written = await _send(response, head, pieces)
    log.info("memory.customer_exported", agent_id=agent_id, bytes=written)
    await note_read(request, agent_id, user_id, "export", **counted)  # what was sent
    return response


async def _send(response: web.StreamResponse, head: str, pieces: AsyncIterator[str]) -> int:
    """Write the document; the bytes written. A database failure or a client gone mid-way
    ends the answer without closing the JSON."""
    written = 0
    try:
        chunk = head.encode()
        await response.write(chunk)
        written += len(chunk)
        async for piece in pieces:
            chunk = piece.encode()
            await response.write(chunk)
            written += len(chunk)
        await response.write_eof()
    except MemoryFailure as failure:
        log.warning("memory.export_cut", code=failure.code)
    except ConnectionError:  # the client went while a piece was written or waited to drain
        pass
    return written


ROUTES = (
    Route(
        "POST",
        PATH,
        export,
        "memory:read",
        agents="one",
        deadline="own",
        body=PersonBody,
        answers=((200, answers.MemoryExport),),
        refusals=(
            (
                429,
                "export_busy: as many exports stream as the process allows (WEB_MAX_EXPORTS);"
                " refused before any database work, retry after Retry-After",
            ),
        ),
        summary="Everything held about one customer under one agent, as one JSON document",
        description=(
            "Streamed as it is read, in one database snapshot: facts with every version,"
            " call records, ops events, unsaved call journals, chat sessions with their turns"
            " and run detail, held decisions, idempotency keys; each row as stored. Nothing of"
            " anyone else. After delete-all every list is empty (the revision counter stays)."
        ),
    ),
)
