"""`POST /v1/chat/completions`: an OpenAI-compatible chat wire over a catalog agent.

`model` names the agent. The turn resolves the agent's current effective settings, selects the
customer under its fixed identity key from the wire's identities (`worker.http.chat_wire`),
offers the memory tools of the settings table, and runs the bounded tool loop
(`chat.run_turn`) on the conversation model. With `x-stackbone-session` the thread is kept in
Postgres (claimed for the turn: a second turn at once is a 409); with
`x-stackbone-conversation` the turn is only recorded under one listed session. The answer is
OpenAI's completion, or with `stream: true` its server-sent chunks ending `data: [DONE]`.
Errors on this path use OpenAI's error shape (`worker.http.errors`).
"""

from __future__ import annotations

import json
import time
import uuid
from typing import Any, ClassVar

import structlog
from aiohttp import web

from chat import (
    ChatConfig,
    ConversationModel,
    SessionAddress,
    ToolScope,
    TurnInput,
    TurnRecord,
    TurnResult,
    claim,
    offered_tools,
    record,
    release,
    run_turn,
    select_customer,
    session_id,
    session_scope,
    thread,
)
from memory.settings import CallSettings
from memory.store import load_call_settings
from worker.catalog import AgentSpec, UnknownAgent
from worker.http import answers
from worker.http.chat_wire import ChatBody, SessionHeader, identities_of, session_of
from worker.http.routes_context import (
    CATALOG,
    MEMORY,
    POOL,
    Route,
    bounded,
    parse_body,
    read_json,
    respond,
)

CHAT_CONFIG = web.AppKey("chat_config", ChatConfig)
CHAT_MODEL = web.AppKey("chat_model", ConversationModel)
log = structlog.get_logger(__name__)


class ModelNotFound(LookupError):
    """`model` names no agent of the catalog (404, as OpenAI answers an unknown model)."""

    code: ClassVar[str] = "model_not_found"

    def __init__(self) -> None:
        self.message = "model: no agent with this id is declared"
        self.field: str | None = "model"
        super().__init__(self.message)


def _agent(request: web.Request, name: str) -> AgentSpec:
    try:
        return request.app[CATALOG].get(name)
    except UnknownAgent:
        raise ModelNotFound() from None


def _scope(
    agent: AgentSpec, settings: CallSettings, identities: dict[str, str]
) -> ToolScope | None:
    key = None if settings.binding is None else settings.binding.identity_key
    found = select_customer(key, identities)
    offered = offered_tools(settings.read, settings.save, customer_known=found.user_id is not None)
    if found.user_id is None:
        if settings.read or settings.save:  # memory is on but this turn has nobody to bind
            log.info("chat.no_memory", agent_id=agent.name, reason=found.reason)
        return None
    if not offered:
        return None
    return ToolScope(agent.name, found.user_id, settings, offered)


def _address(
    agent: AgentSpec, header: SessionHeader, settings: CallSettings, identities: dict[str, str]
) -> SessionAddress:
    key = None if settings.binding is None else settings.binding.identity_key
    scope = session_scope(key, identities)
    user = scope[-1] if scope[0] == "bound" or scope[0] == "unbound" else None
    ident = session_id(header.kind, agent.name, header.key, scope)
    return SessionAddress(ident, header.kind, agent.name, header.key, user)


def _new_messages(body: ChatBody) -> list[dict[str, Any]]:
    return [m.model_dump(exclude_none=True) for m in body.messages]


def _last_user_text(body: ChatBody) -> str:
    users = [m for m in body.messages if m.role == "user"]
    return users[-1].text() if users else ""


async def complete(request: web.Request) -> web.StreamResponse:
    body = parse_body(ChatBody, await read_json(request))
    agent = _agent(request, body.model)
    identities = identities_of(request, body.user)
    header = session_of(request)
    pool, config = request.app[POOL], request.app[CHAT_CONFIG]
    settings = await bounded(request, load_call_settings(pool, agent.name, agent.memory))
    scope = _scope(agent, settings, identities)
    address = None if header is None else _address(agent, header, settings, identities)
    earlier: list[dict[str, Any]] = []
    if address is not None:
        await bounded(request, claim(pool, address, config.lease_seconds))
    try:
        if address is not None and address.kind == "session":
            earlier = await bounded(request, thread(pool, address.id))
        turn = TurnInput(
            agent.name, agent.instructions, earlier, _new_messages(body), scope, body.options()
        )
        result = await run_turn(
            request.app[CHAT_MODEL], request.app[MEMORY], turn, config.max_tool_steps
        )
        if address is not None:
            kept = [*turn.new, *result.added] if address.kind == "session" else []
            turn_record = TurnRecord(
                kept,
                _last_user_text(body),
                result.reply,
                result.prompt_tokens,
                result.completion_tokens,
                result.duration_ms,
            )
            await bounded(request, record(pool, address.id, turn_record))
            address = None  # released by the record
    finally:
        if address is not None:
            await release(pool, address.id)
    if body.stream:
        include_usage = body.stream_options is not None and body.stream_options.include_usage
        return await _stream(request, body.model, result, include_usage)
    return respond(_completion(body.model, result))


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _usage(result: TurnResult) -> dict[str, int]:
    total = result.prompt_tokens + result.completion_tokens
    return {
        "prompt_tokens": result.prompt_tokens,
        "completion_tokens": result.completion_tokens,
        "total_tokens": total,
    }


def _completion(model: str, result: TurnResult) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": result.reply, "refusal": None},
                "logprobs": None,
                "finish_reason": "stop",
            }
        ],
        "usage": _usage(result),
    }


def _chunk(ident: str, model: str, choices: list[dict[str, Any]], **extra: Any) -> bytes:
    body = {
        "id": ident,
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": model,
        "choices": choices,
        **extra,
    }
    return f"data: {_dumps(body)}\n\n".encode()


async def _stream(
    request: web.Request, model: str, result: TurnResult, include_usage: bool
) -> web.StreamResponse:
    """The answer as OpenAI's server-sent chunks: the role, the text, the finish, usage if
    asked, then `[DONE]`. The turn has already finished: failures answered as JSON before."""
    response = web.StreamResponse(
        headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}
    )
    await response.prepare(request)
    ident = f"chatcmpl-{uuid.uuid4().hex}"
    role = {"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}
    text = {"index": 0, "delta": {"content": result.reply}, "finish_reason": None}
    done = {"index": 0, "delta": {}, "finish_reason": "stop"}
    for choice in (role, text, done):
        await response.write(_chunk(ident, model, [choice]))
    if include_usage:
        await response.write(_chunk(ident, model, [], usage=_usage(result)))
    await response.write(b"data: [DONE]\n\n")
    await response.write_eof()
    return response


ROUTES = (
    Route(
        "POST",
        "/v1/chat/completions",
        complete,
        "chat",
        deadline="own",  # model requests outlast the database deadline; database steps bounded
        body=ChatBody,
        answers=((200, answers.ChatCompletion),),
        summary="A text turn with an agent (OpenAI Chat Completions)",
    ),
)
