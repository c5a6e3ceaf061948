"""Starting calls on LiveKit from the web process: a browser test room, or an outbound call.

Both create a room and dispatch the named agent into it explicitly, with job metadata the server
wrote (`chat.identities`). Identities never go into room metadata or the browser's token:
every participant can read those, and a participant could choose them. The browser gets a token
for that one room, under a random identity that is not the operator's, for a short time.
LiveKit's errors and an unreachable server become one `LiveKitFailed` here, which the error
middleware answers as 502; the log names the step and LiveKit's error code, nothing else.
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import ClassVar, TypeVar

import aiohttp
import structlog
from livekit import api

from memory.contract import CodedError
from worker.voice_settings import VoiceSettings

log = structlog.get_logger(__name__)
T = TypeVar("T")

EMPTY_ROOM_TIMEOUT_SECONDS = 300
"""A room nobody joins is closed by LiveKit after this long."""
DEPARTURE_TIMEOUT_SECONDS = 20
"""After the last participant leaves, LiveKit closes the room after this long."""


class LiveKitFailed(CodedError):
    """LiveKit refused a request or could not be reached (502)."""

    code: ClassVar[str] = "livekit_failed"

    def __init__(self, step: str, error_code: str | None) -> None:
        super().__init__(f"LiveKit could not {step}" + (f" ({error_code})" if error_code else ""))


class VoiceNotConfigured(CodedError):
    """The web process has no LiveKit credentials (503)."""

    code: ClassVar[str] = "voice_not_configured"

    def __init__(self) -> None:
        super().__init__("LiveKit is not configured: set LIVEKIT_URL, LIVEKIT_API_KEY and _SECRET")


@dataclass(frozen=True, slots=True)
class BrowserRoom:
    """What a browser needs to join a test call, and what was dispatched."""

    room_name: str
    url: str
    token: str
    participant_identity: str
    expires_at: datetime
    dispatch_id: str


@dataclass(frozen=True, slots=True)
class OutboundCall:
    room_name: str
    dispatch_id: str
    trunk_id: str


def new_room_name(kind: str) -> str:
    """A fresh, unguessable room name; it says what kind of call it is, nothing about whom."""
    return f"{kind}-{secrets.token_hex(8)}"


def browser_token(
    settings: VoiceSettings, room: str, identity: str, now: datetime
) -> tuple[str, datetime]:
    """A join token for one room only, and when it expires; no admin, no dispatch, no config."""
    grants = api.VideoGrants(
        room_join=True, room=room, can_publish=True, can_subscribe=True, can_publish_data=True
    )
    token = (
        api.AccessToken(settings.api_key, settings.api_secret)
        .with_identity(identity)
        .with_name("Test caller")
        .with_grants(grants)
        .with_ttl(settings.token_ttl)
        .to_jwt()
    )
    return token, now + settings.token_ttl


class Dispatcher:
    """LiveKit's room and dispatch services, one short-lived client per operation."""

    def __init__(self, settings: VoiceSettings) -> None:
        self._settings = settings

    @property
    def settings(self) -> VoiceSettings:
        return self._settings

    async def open_test_room(self, agent_name: str, metadata: str) -> BrowserRoom:
        """A new room with the agent dispatched under `metadata`, and a browser's join token."""
        room = new_room_name("test")
        dispatch_id = await self._dispatch(agent_name, room, metadata)
        identity = f"browser-{secrets.token_hex(6)}"
        token, expires_at = browser_token(self._settings, room, identity, datetime.now(UTC))
        log.info("voice.test_room_opened", agent_id=agent_name, room=room)
        return BrowserRoom(
            room, self._settings.public_url, token, identity, expires_at, dispatch_id
        )

    async def start_outbound(self, agent_name: str, metadata: str, trunk_id: str) -> OutboundCall:
        """A new room with the agent dispatched to dial; `metadata` names number and trunk."""
        room = new_room_name("call")
        dispatch_id = await self._dispatch(agent_name, room, metadata)
        log.info("voice.outbound_dispatched", agent_id=agent_name, room=room, trunk_id=trunk_id)
        return OutboundCall(room, dispatch_id, trunk_id)

    async def _dispatch(self, agent_name: str, room: str, metadata: str) -> str:
        settings = self._settings
        async with api.LiveKitAPI(settings.url, settings.api_key, settings.api_secret) as lk:
            await _call("create the room", lk.room.create_room(_room_request(room)))
            dispatch = await _call(
                "dispatch the agent",
                lk.agent_dispatch.create_dispatch(
                    api.CreateAgentDispatchRequest(
                        agent_name=agent_name, room=room, metadata=metadata
                    )
                ),
            )
        # a room left without its agent closes itself after EMPTY_ROOM_TIMEOUT_SECONDS
        return str(dispatch.id)


def _room_request(room: str) -> api.CreateRoomRequest:
    return api.CreateRoomRequest(
        name=room,
        empty_timeout=EMPTY_ROOM_TIMEOUT_SECONDS,
        departure_timeout=DEPARTURE_TIMEOUT_SECONDS,
    )


async def _call(step: str, request: Awaitable[T]) -> T:
    try:
        return await request
    except api.ServerError as err:
        log.warning("voice.livekit_failed", step=step, error_code=err.code, status=err.status)
        raise LiveKitFailed(step, err.code) from None
    except (aiohttp.ClientError, TimeoutError) as err:
        log.warning("voice.livekit_failed", step=step, error_type=type(err).__name__)
        raise LiveKitFailed(step, None) from None
