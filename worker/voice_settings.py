"""How the web process reaches LiveKit: server API credentials, browser URL, token lifetime, trunk.

Read once at start-up. Without any LiveKit variable the web process still serves memory and
settings routes, and the voice routes answer 503 saying LiveKit is not configured; a partial
configuration (a URL without a secret, say) stops the process with the variable's name.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Final

from callmemory import environment
from callmemory.environment import default

TRUNK_VAR: Final = "SIP_OUTBOUND_TRUNK_ID"
DEFAULT_TOKEN_TTL = timedelta(seconds=default("VOICE_ROOM_TOKEN_TTL_SECONDS"))


@dataclass(frozen=True, slots=True)
class VoiceSettings:
    url: str
    """Where the web process calls LiveKit's server API (http(s) or ws(s))."""
    api_key: str
    api_secret: str
    public_url: str
    """What a browser connects to; often the same deployment under a public wss:// name."""
    token_ttl: timedelta = DEFAULT_TOKEN_TTL
    outbound_trunk_id: str | None = None


LIVEKIT_TOGETHER: Final = environment.Required(
    ("LIVEKIT_URL", "LIVEKIT_API_KEY", "LIVEKIT_API_SECRET"),
    "the voice routes need all LiveKit variables",
    together=True,
)


def voice_settings(env: environment.Environment) -> VoiceSettings | None:
    """From a model read with `LIVEKIT_TOGETHER` required: all three variables or none."""
    if not (env.livekit_url and env.livekit_api_key and env.livekit_api_secret):
        return None
    return VoiceSettings(
        url=env.livekit_url,
        api_key=env.livekit_api_key,
        api_secret=env.livekit_api_secret,
        public_url=env.livekit_public_url or env.livekit_url,
        token_ttl=timedelta(seconds=env.voice_room_token_ttl_seconds),
        outbound_trunk_id=env.sip_outbound_trunk_id,
    )
