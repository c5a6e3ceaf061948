"""Add to one customer's memory over HTTP: what a CRM, a backend or a contact-centre platform
calls with a conversation, as `Memory.add` does in Python (one model call, then one atomic
write), with the agent's effective instructions, brief and time zone.

The route bounds each database step by the web process's deadline (the settings read, the
key's claim, the add's reads and write, the answer kept), never the model call, which keeps
the extraction model's own timeout. With an `Idempotency-Key` (`worker.http.server.idempotency`)
a retry gets the first answer and makes no second model call.
"""

from __future__ import annotations

from collections.abc import Awaitable
from dataclasses import replace
from typing import Annotated, Any, cast

import structlog
from aiohttp import web
from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema

from infra.deadline import Bound
from memory.contract import AddOutcome, ErrorInfo, MemoryFailure, Result, strict_json
from memory.store import (
    Claimed,
    KeyOf,
    claim_key,
    keep_answer,
    load_call_settings,
    release_key,
)
from worker.agent_directory import AgentEntry
from worker.http.server import answers
from worker.http.server.context import (
    MEMORY,
    POOL,
    Route,
    actor,
    agent_of,
    database_bound,
    respond,
    unwrap,
    wire_json,
)
from worker.http.server.idempotency import (
    HEADER,
    KEY_RULE,
    REPLAYED,
    STALE_AFTER_SECONDS,
    body_digest,
    idempotency_key,
    replayed,
)
from worker.http.server.request_body import parse_body, read_json

log = structlog.get_logger(__name__)
PATH = "/api/memory/customers/{agentId}/add"
DEFAULT_CHANNEL = "http"
_CONTENT_SCHEMA = {
    "description": "a transcript, or OpenAI-shaped chat messages ({role, content})",
    "oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "object"}}],
}
# the call record's fields as the memory API names them in its errors, and on this wire
_WIRE_NAMES = {
    "call.started_at": "call.startedAt",
    "call.duration_seconds": "call.durationSeconds",
    "call.run_id": "call.runId",
}


class CallFields(BaseModel):
    """The call record's fields; the memory API checks each value and names it."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    started_at: str | None = Field(default=None, alias="startedAt")  # ISO 8601 with an offset
    duration_seconds: int | float | None = Field(default=None, alias="durationSeconds")
    outcome: str | None = None
    run_id: str | None = Field(default=None, alias="runId")
    channel: str | None = None  # 1..40 characters: where it came from (`crm`); default `http`


class AddBody(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    user_id: str = Field(alias="userId")  # the memory API validates the value
    content: Annotated[Any, WithJsonSchema(_CONTENT_SCHEMA)]  # checked by the memory API
    call: CallFields | None = None


def call_of(fields: CallFields | None) -> dict[str, object]:
    """The call record's fields as `Memory.add` takes them; the channel `http` by default."""
    given = {} if fields is None else fields.model_dump(exclude_none=True)
    return {"channel": DEFAULT_CHANNEL} | given


def on_the_wire(result: Result[AddOutcome]) -> Result[AddOutcome]:
    """The result with an error's call field named as this body names it (`call.startedAt`)."""
    error = result.error
    if error is None or error.field not in _WIRE_NAMES:
        return result
    wire = _WIRE_NAMES[error.field]
    message = error.message.replace(error.field, wire, 1)
    return replace(result, error=ErrorInfo(error.code, message, wire))


async def _added(request: web.Request, agent: AgentEntry, body: AddBody) -> dict[str, Any]:
    """The add with the agent's effective settings (read first, within the deadline)."""
    database, agent_id = database_bound(request), agent.name
    pool = request.app[POOL]
    settings = await database(load_call_settings(pool, agent_id, agent.memory))
    result = await request.app[MEMORY].add(
        body.content,
        agent_id,
        body.user_id,
        {**call_of(body.call), "key": actor(request)},  # the writer: the key's name
        settings.instructions,
        brief=settings.brief,
        time_zone=settings.time_zone,
        database=database,
    )
    outcome = unwrap(on_the_wire(result))
    log.info("memory.added_over_http", agent_id=agent_id, revision=outcome.revision)
    return answers.Added.of(agent_id, body.user_id, outcome).wire()


async def _once(request: web.Request, agent: AgentEntry, body: AddBody, key: str) -> web.Response:
    """The add under its key: the first answer again, a 409, or this request's add."""
    pool, database, digest = request.app[POOL], database_bound(request), body_digest(body)
    scope = KeyOf(agent.name, body.user_id, key)
    stale = STALE_AFTER_SECONDS
    claim = await database(claim_key(pool, scope, digest, stale_after_seconds=stale))
    if not isinstance(claim, Claimed):
        first = cast(dict[str, Any], strict_json.loads(replayed(claim, digest)))
        response = respond(first)  # written as it was: the same bytes
        response.headers[REPLAYED] = "true"
        return response
    try:
        answer = await _added(request, agent, body)
    except MemoryFailure:
        await _release(database, release_key(pool, scope, claim))
        raise
    await _keep(database, keep_answer(pool, scope, claim, wire_json(answer)))
    return respond(answer)


async def _release(database: Bound, step: Awaitable[None]) -> None:
    try:
        await database(step)
    except MemoryFailure as failure:  # the claim is taken over once stale
        log.warning("memory.idempotency_unreleased", error_code=failure.code)


async def _keep(database: Bound, step: Awaitable[bool]) -> None:
    """The answer kept for retries; when that fails the add still answers (it committed) and
    a retry meets `idempotency_key_in_progress` until the claim is stale."""
    try:
        await database(step)
    except MemoryFailure as failure:
        log.warning("memory.idempotency_unrecorded", error_code=failure.code)


async def add(request: web.Request) -> web.Response:
    agent = agent_of(request, request.match_info["agentId"])
    key = idempotency_key(request.headers)
    body = parse_body(AddBody, await read_json(request))
    if key is None:
        return respond(await _added(request, agent, body))
    return await _once(request, agent, body, key)


ROUTES = (
    Route(
        "POST",
        PATH,
        add,
        "memory:write",
        agents="one",
        body=AddBody,
        deadline="own",  # each database step within the deadline, the model's within its own
        headers=(
            (
                HEADER,
                f"optional, {KEY_RULE}: a retry with the same key and body within 24 hours"
                " gets the first answer (no second model call); another body under the key"
                " is 409 idempotency_key_reused, a request still running with it 409"
                " idempotency_key_in_progress",
            ),
        ),
        answers=((200, answers.Added),),
        summary="Add a conversation to one customer's memory (one model call, one write)",
        description=(
            "The agent's effective instructions, brief and time zone steer the extraction. The"
            " web process's database deadline bounds every database step (past it 503"
            " memory_unavailable); the extraction model call keeps its own timeout (502"
            " memory_model_failed past it). The call record's channel is `call.channel`, else"
            " `http`."
        ),
    ),
)
