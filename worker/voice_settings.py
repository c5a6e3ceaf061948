"""How the web process reaches LiveKit: server API credentials, browser URL, token lifetime, trunk.

Read once at start-up. Without any LiveKit variable the web process still serves memory and
settings routes, and the voice routes answer 503 saying LiveKit is not configured; a partial
configuration (a URL without a secret, say) stops the process with the variable's name.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import Final

from memory import environment

URL_VAR: Final = "LIVEKIT_URL"
KEY_VAR: Final = "LIVEKIT_API_KEY"
SECRET_VAR: Final = "LIVEKIT_API_SECRET"
PUBLIC_URL_VAR: Final = "LIVEKIT_PUBLIC_URL"
TOKEN_TTL_VAR: Final = "VOICE_ROOM_TOKEN_TTL_SECONDS"
TRUNK_VAR: Final = "SIP_OUTBOUND_TRUNK_ID"

DEFAULT_TOKEN_TTL = timedelta(minutes=10)
MIN_TOKEN_TTL = timedelta(seconds=30)
MAX_TOKEN_TTL = timedelta(hours=1)


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
    (URL_VAR, KEY_VAR, SECRET_VAR), "the voice routes need all LiveKit variables", together=True
)


def load_voice_settings(env: Mapping[str, str] | None = None) -> VoiceSettings | None:
    """The settings, or None when no LiveKit variable is set at all."""
    return voice_settings(environment.read(env, required=(LIVEKIT_TOGETHER,)))


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
