"""A local stand-in for LiveKit's server API, speaking its Twirp protocol over real HTTP.

No LiveKit server can run on these machines, so tests point livekit-api's own client at this
one. It serves the calls the project makes (create room, create dispatch, create SIP
participant), checks each request's bearer token with livekit-api's verifier and the grant the
real server requires, records what it received, and answers the way the real server does:
protobuf bodies on success, Twirp JSON errors otherwise. SIP failures carry the SIP status in
the error metadata and the Twirp code LiveKit maps it to (`livekit/protocol` sip.go), so the
client raises the same `SipCallError` it would in production.

    server = LiveKitServer()
    await server.start()
    server.fail_next_dial(486)           # the next CreateSIPParticipant answers "Busy Here"
    ... LiveKitAPI(server.url, server.api_key, server.api_secret) ...
    server.calls("AgentDispatchService/CreateDispatch")   # the parsed requests, in order
    await server.stop()
"""

from __future__ import annotations

import asyncio
import secrets
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import jwt
from aiohttp import web
from google.protobuf import json_format
from google.protobuf.message import DecodeError, Message
from livekit import api
from livekit.api.access_token import Claims

API_KEY = "test-livekit-key"
API_SECRET = "test-livekit-secret-0123456789abcdef0123"
OUTBOUND_TRUNK_ID = "ST_outbound1"
OUTBOUND_TRUNK_NUMBER = "+15550000000"

REASONS = {
    403: "Forbidden",
    404: "Not Found",
    408: "Request Timeout",
    480: "Temporarily Unavailable",
    486: "Busy Here",
    487: "Request Terminated",
    503: "Service Unavailable",
    600: "Busy Everywhere",
    603: "Decline",
}
# how LiveKit turns a SIP final response into a Twirp error code (livekit/protocol sip.go)
_SIP_TO_TWIRP = {
    403: "permission_denied",
    404: "not_found",
    408: "deadline_exceeded",
    480: "resource_exhausted",
    486: "resource_exhausted",
    487: "aborted",
    504: "deadline_exceeded",
    600: "resource_exhausted",
    603: "permission_denied",
}
# Twirp's error code -> HTTP status table
HTTP_STATUS = {
    "invalid_argument": 400,
    "malformed": 400,
    "unauthenticated": 401,
    "permission_denied": 403,
    "not_found": 404,
    "bad_route": 404,
    "deadline_exceeded": 408,
    "aborted": 409,
    "already_exists": 409,
    "failed_precondition": 412,
    "resource_exhausted": 429,
    "internal": 500,
    "unknown": 500,
    "unimplemented": 501,
    "unavailable": 503,
}


class TwirpFailure(Exception):
    def __init__(self, code: str, msg: str, meta: dict[str, str] | None = None) -> None:
        super().__init__(msg)
        self.code, self.msg, self.meta = code, msg, meta or {}


def sip_failure(sip_status_code: int, sip_status: str | None = None) -> TwirpFailure:
    """The error LiveKit answers when the callee's side ends a dial with this SIP status."""
    reason = sip_status or REASONS.get(sip_status_code, "Error")
    if sip_status_code in _SIP_TO_TWIRP:
        code = _SIP_TO_TWIRP[sip_status_code]
    else:
        code = "failed_precondition" if 500 <= sip_status_code < 600 else "invalid_argument"
    meta = {"sip_status_code": str(sip_status_code), "sip_status": reason}
    return TwirpFailure(code, f"sip status {sip_status_code}: {reason}", meta)


@dataclass(frozen=True)
class Recorded:
    """One request as the server saw it: method, parsed body and the verified token claims."""

    method: str
    request: Message
    claims: Claims | None
    error: str | None = None


Handler = Callable[[Any, Claims], Message]


@dataclass
class LiveKitServer:
    api_key: str = API_KEY
    api_secret: str = API_SECRET
    outbound_trunks: dict[str, str] = field(
        default_factory=lambda: {OUTBOUND_TRUNK_ID: OUTBOUND_TRUNK_NUMBER}
    )
    ring_seconds: float = 0.0
    """How long a dial rings before it is answered or fails."""
    recorded: list[Recorded] = field(default_factory=list)
    on_answer: Callable[[api.CreateSIPParticipantRequest], None] | None = None
    """Called when a dial is answered (before the reply), e.g. to put the callee in a room."""
    url: str = ""
    _failures: dict[str, deque[TwirpFailure]] = field(default_factory=dict)
    _runner: web.AppRunner | None = None

    async def start(self) -> str:
        app = web.Application()
        app.router.add_post("/twirp/livekit.{service}/{method}", self._handle)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self.url = f"http://127.0.0.1:{port}"
        return self.url

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    def fail_next(self, method: str, failure: TwirpFailure) -> None:
        """Answer the next call of `method` (e.g. "RoomService/CreateRoom") with `failure`."""
        self._failures.setdefault(method, deque()).append(failure)

    def fail_next_dial(self, sip_status_code: int, sip_status: str | None = None) -> None:
        self.fail_next("SIP/CreateSIPParticipant", sip_failure(sip_status_code, sip_status))

    def calls(self, method: str) -> list[Any]:
        """The parsed requests of one method that the server accepted, in order."""
        return [r.request for r in self.recorded if r.method == method and r.error is None]

    def callee_attributes(self, request: api.CreateSIPParticipantRequest) -> dict[str, str]:
        """The attributes LiveKit's SIP service gives the participant a dial creates."""
        return {
            "sip.phoneNumber": request.sip_call_to,
            "sip.trunkPhoneNumber": self.outbound_trunks.get(request.sip_trunk_id, ""),
            "sip.trunkID": request.sip_trunk_id,
            "sip.callStatus": "active",
        }

    # -- protocol ---------------------------------------------------------------------------

    def _routes(self) -> dict[str, tuple[type[Message], Handler]]:
        return {
            "RoomService/CreateRoom": (api.CreateRoomRequest, self._create_room),
            "AgentDispatchService/CreateDispatch": (
                api.CreateAgentDispatchRequest,
                self._create_dispatch,
            ),
            "SIP/CreateSIPParticipant": (api.CreateSIPParticipantRequest, self._create_sip),
        }

    async def _handle(self, request: web.Request) -> web.Response:
        method = f"{request.match_info['service']}/{request.match_info['method']}"
        route = self._routes().get(method)
        if route is None:
            return _error(TwirpFailure("bad_route", f"no handler for {method}"))
        message_type, handler = route
        body = message_type()
        try:
            _parse(body, await request.read(), request.content_type)
            claims = self._verify(request.headers.get("Authorization"))
            await self._scripted(method, body)
            reply = handler(body, claims)
        except TwirpFailure as failure:
            self.recorded.append(Recorded(method, body, None, failure.code))
            return _error(failure)
        self.recorded.append(Recorded(method, body, claims))
        return web.Response(body=reply.SerializeToString(), content_type="application/protobuf")

    def _verify(self, header: str | None) -> Claims:
        scheme, _, token = (header or "").partition(" ")
        if scheme != "Bearer" or not token:
            raise TwirpFailure("unauthenticated", "missing bearer token")
        try:
            return api.TokenVerifier(self.api_key, self.api_secret).verify(token)
        except (jwt.PyJWTError, ValueError) as exc:
            raise TwirpFailure("unauthenticated", f"invalid token: {exc}") from None

    async def _scripted(self, method: str, body: Message) -> None:
        if method == "SIP/CreateSIPParticipant" and self.ring_seconds:
            await asyncio.sleep(self.ring_seconds)
        queue = self._failures.get(method)
        if queue:
            raise queue.popleft()

    def _create_room(self, req: api.CreateRoomRequest, claims: Claims) -> Message:
        if not (claims.video and claims.video.room_create):
            raise TwirpFailure("permission_denied", "requires roomCreate grant")
        return api.Room(
            sid=_sid("RM_"),
            name=req.name,
            empty_timeout=req.empty_timeout,
            departure_timeout=req.departure_timeout,
            metadata=req.metadata,
        )

    def _create_dispatch(self, req: api.CreateAgentDispatchRequest, claims: Claims) -> Message:
        if not (claims.video and claims.video.room_admin and claims.video.room == req.room):
            raise TwirpFailure("permission_denied", "requires roomAdmin grant for this room")
        if not req.room:
            raise TwirpFailure("invalid_argument", "room is required")
        return api.AgentDispatch(
            id=_sid("AD_"), agent_name=req.agent_name, room=req.room, metadata=req.metadata
        )

    def _create_sip(self, req: api.CreateSIPParticipantRequest, claims: Claims) -> Message:
        if not (claims.sip and claims.sip.call):
            raise TwirpFailure("permission_denied", "requires SIP call grant")
        if not req.sip_call_to or not req.room_name:
            raise TwirpFailure("invalid_argument", "sip_call_to and room_name are required")
        if req.sip_trunk_id not in self.outbound_trunks:
            raise TwirpFailure("not_found", "requested sip trunk does not exist")
        if self.on_answer is not None:
            self.on_answer(req)
        return api.SIPParticipantInfo(
            participant_id=_sid("PA_"),
            participant_identity=req.participant_identity,
            room_name=req.room_name,
            sip_call_id=_sid("SCL_"),
        )


def _parse(body: Message, raw: bytes, content_type: str) -> None:
    try:
        if content_type == "application/json":
            json_format.Parse(raw, body)
        elif content_type == "application/protobuf":
            body.ParseFromString(raw)
        else:
            raise TwirpFailure("bad_route", f"unexpected content type {content_type}")
    except (json_format.ParseError, DecodeError, ValueError) as exc:
        raise TwirpFailure("malformed", f"could not parse the request body: {exc}") from None


def _error(failure: TwirpFailure) -> web.Response:
    body = {"code": failure.code, "msg": failure.msg}
    if failure.meta:
        body["meta"] = failure.meta  # type: ignore[assignment]
    return web.json_response(body, status=HTTP_STATUS.get(failure.code, 500))


def _sid(prefix: str) -> str:
    return prefix + secrets.token_hex(6)
