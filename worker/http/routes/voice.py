"""Voice calls from the API: browser test rooms and outbound dialing jobs.

`POST /api/voice/rooms` checks the identities map, dispatches the agent into a new room and
hands the browser a one-room token. The answer also says whether the call will have memory,
decided by the same resolver the worker runs on the same metadata, so a missing identity shows
up before anyone speaks. The API key's owner is never an identity: only the map (and a scalar
`customerId`) reach the metadata. `POST /api/voice/calls` dispatches an agent that will dial a
number; the number is checked, never logged, and becomes the callee's `phoneNumber` identity
unless its `identities` (the same map, the same rules) names one; the map's other keys reach
the job the same way, so an agent keyed by `customerId` recalls the person it calls. Its answer
says whether the call will have memory the same way, as the job resolves it before anyone answers.
"""

from __future__ import annotations

import functools
from typing import Any

from aiohttp import web
from pydantic import BaseModel, ConfigDict, Field

from chat.identities import (
    MAX_ENTRIES,
    MAX_NAME_CHARS,
    MAX_VALUE_CHARS,
    check_identities,
    merge_customer_id,
)
from memory.contract import limits
from memory.store import load_settings
from sip.caller import Caller
from sip.destination import InvalidDestination, check_destination, check_trunk_id
from sip.job_metadata import browser_metadata, outbound_metadata
from worker.dispatcher import Dispatcher, VoiceNotConfigured
from worker.http.server import answers
from worker.http.server.context import (
    POOL,
    Route,
    agent_of,
    bounded,
    reachable_agents,
    respond,
)
from worker.http.server.request_body import parse_body, read_json
from worker.memory_outlook import call_outlook, read_outlook

DISPATCHER: web.AppKey[Dispatcher | None] = web.AppKey("dispatcher")
_AGENT_ID = Field(alias="agentId", min_length=1, max_length=limits.MAX_AGENT_ID_CHARS)
_IDENTITIES_SCHEMA: dict[str, Any] = {
    "type": ["object", "null"],
    "description": "who the call is about: identity key -> value, both kept byte-for-byte",
    "maxProperties": MAX_ENTRIES,
    "propertyNames": {"minLength": 1, "maxLength": MAX_NAME_CHARS},
    "additionalProperties": {"type": "string", "minLength": 1, "maxLength": MAX_VALUE_CHARS},
}
# the map is checked by chat.identities, which names each rule; the document states its limits
_IDENTITIES = Field(default=None, json_schema_extra=_IDENTITIES_SCHEMA)


class RoomBody(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    agent_id: str = _AGENT_ID
    identities: Any = _IDENTITIES
    customer_id: Any = Field(default=None, alias="customerId")


class CallBody(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    agent_id: str = _AGENT_ID
    phone_number: Any = Field(alias="phoneNumber")  # checked by sip.dialing
    trunk_id: Any = Field(default=None, alias="trunkId")
    identities: Any = _IDENTITIES


def _dispatcher(request: web.Request) -> Dispatcher:
    dispatcher = request.app.get(DISPATCHER)
    if dispatcher is None:
        raise VoiceNotConfigured()
    return dispatcher


async def open_room(request: web.Request) -> web.Response:
    dispatcher = _dispatcher(request)
    body = parse_body(RoomBody, await read_json(request))
    agent = agent_of(request, body.agent_id)
    identities = merge_customer_id(check_identities(body.identities), body.customer_id)
    metadata = browser_metadata(identities)
    bound = functools.partial(bounded, request)
    pool = request.app[POOL]
    outlook = await read_outlook(pool, bound, agent.name, Caller(is_sip=False), metadata)
    room = await dispatcher.open_test_room(agent.name, metadata)
    answer = answers.Room(
        agent_id=agent.name,
        room_name=room.room_name,
        url=room.url,
        token=room.token,
        participant_identity=room.participant_identity,
        expires_at=room.expires_at,
        dispatch_id=room.dispatch_id,
        memory=outlook,
    )
    return respond(answer.wire(), status=201)


def _trunk(given: object, dispatcher: Dispatcher) -> object:
    if given is not None:
        return given
    if dispatcher.settings.outbound_trunk_id is None:
        raise InvalidDestination("trunkId", "required: SIP_OUTBOUND_TRUNK_ID is not configured")
    return dispatcher.settings.outbound_trunk_id


async def start_call(request: web.Request) -> web.Response:
    dispatcher = _dispatcher(request)
    body = parse_body(CallBody, await read_json(request))
    agent = agent_of(request, body.agent_id)
    number = check_destination(body.phone_number)
    trunk = check_trunk_id(_trunk(body.trunk_id, dispatcher))
    metadata = outbound_metadata(number, trunk, check_identities(body.identities))
    outlook = await call_outlook(
        request.app[POOL], functools.partial(bounded, request), agent.name, metadata
    )
    call = await dispatcher.start_outbound(agent.name, metadata, trunk)
    answer = answers.OutboundCall(
        agent_id=agent.name,
        room_name=call.room_name,
        dispatch_id=call.dispatch_id,
        trunk_id=call.trunk_id,
        memory=outlook,
    )
    return respond(answer.wire(), status=202)


async def list_agents(request: web.Request) -> web.Response:
    """The declared agents and their identity keys, for the test-call page's picker."""
    agents = []
    for agent in reachable_agents(request):
        stored = await load_settings(request.app[POOL], agent.name)
        key = None if stored.binding is None else stored.binding.identity_key
        agents.append(answers.VoiceAgent(agent_id=agent.name, identity_key=key))
    return respond(answers.VoiceAgents(agents=agents).wire())


ROUTES = (
    Route(
        "GET",
        "/api/voice/agents",
        list_agents,
        "voice:rooms",
        agents="listing",
        answers=((200, answers.VoiceAgents),),
        summary="Agents for the test-call page",
    ),
    # these two also wait on LiveKit: only their database reads are bounded (by `bounded`)
    Route(
        "POST",
        "/api/voice/rooms",
        open_room,
        "voice:rooms",
        agents="one",
        deadline="own",
        body=RoomBody,
        answers=((201, answers.Room),),
        summary="A browser test room with the agent dispatched",
    ),
    Route(
        "POST",
        "/api/voice/calls",
        start_call,
        "voice:calls",
        agents="one",
        deadline="own",
        database="optional",
        body=CallBody,
        answers=((202, answers.OutboundCall),),
        summary="Start an outbound call",
    ),
)
