"""`POST /v1/messages`: an Anthropic Messages wire over a catalog agent.

`model` names the agent, `metadata.user_id` supplies `customerId`, and the identity and session
headers are every wire's (`worker.http.wires.turn_headers`). This module only reads Anthropic's
body (`worker.http.wires.anthropic_body`) into a `chat.TurnRequest` and writes Anthropic's
answer: the turn itself (settings, customer, memory tools, session, bounded tool loop) is
`chat.ChatTurns`, shared by every chat wire (`worker.http.wires.turns`). With `stream: true` the
answer travels as Anthropic's server-sent events as the model writes it
(`worker.http.wires.stream`). The key comes as `x-api-key`, as Anthropic's clients send it, or
as a bearer key. Errors on this path use Anthropic's error shape (`worker.http.server.errors`).
"""

from __future__ import annotations

from aiohttp import web

from worker.http.server import chat_answers
from worker.http.server.context import Route, respond
from worker.http.server.request_body import parse_body, read_json
from worker.http.wires.anthropic_body import Events, MessagesBody, message
from worker.http.wires.stream import stream_turn
from worker.http.wires.turn_headers import identities_of, session_of
from worker.http.wires.turns import chat_turns, turn_request


async def messages(request: web.Request) -> web.StreamResponse:
    body = parse_body(MessagesBody, await read_json(request))
    identities = identities_of(request, body.user_id(), "metadata.user_id")
    session = session_of(request)
    said = body.chat_messages()
    turn = turn_request(request, body.model, said, identities, session, body.options())
    if body.stream:
        return await stream_turn(request, turn, Events(body.model))
    return respond(message(body.model, await chat_turns(request).take(turn)))


ROUTES = (
    Route(
        "POST",
        "/v1/messages",
        messages,
        "chat",
        agents="one",
        deadline="own",  # model requests outlast the database deadline; database steps bounded
        body=MessagesBody,
        answers=((200, chat_answers.AnthropicMessage),),
        summary="A text turn with an agent (Anthropic Messages; the key also as x-api-key)",
        api_key_header=True,
        errors=chat_answers.AnthropicError,
    ),
)
