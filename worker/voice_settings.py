"""How the web process reaches LiveKit: server API credentials, browser URL, token lifetime, trunk.

Read once at start-up. Without any LiveKit variable the web process still serves memory and
settings routes, and the voice routes answer 503 saying LiveKit is not configured; a partial
configuration (a URL without a secret, say) stops the process with the variable's name.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import Final

from memory.config import ConfigError

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


def _token_ttl(env: Mapping[str, str]) -> timedelta:
    raw = env.get(TOKEN_TTL_VAR)
    if not raw:
        return DEFAULT_TOKEN_TTL
    try:
        ttl = timedelta(seconds=int(raw))
    except ValueError:
        raise ConfigError(f"{TOKEN_TTL_VAR} must be a whole number of seconds") from None
    if not MIN_TOKEN_TTL <= ttl <= MAX_TOKEN_TTL:
        raise ConfigError(f"{TOKEN_TTL_VAR} must be between 30 and 3600 seconds")
    return ttl


def load_voice_settings(env: Mapping[str, str] = os.environ) -> VoiceSettings | None:
    """The settings, or None when no LiveKit variable is set at all."""
    given = {name: env.get(name, "") for name in (URL_VAR, KEY_VAR, SECRET_VAR)}
    if not any(given.values()):
        return None
    for name, value in given.items():
        if not value:
            raise ConfigError(f"{name} is not set: the voice routes need all LiveKit variables")
    return VoiceSettings(
        url=given[URL_VAR],
        api_key=given[KEY_VAR],
        api_secret=given[SECRET_VAR],
        public_url=env.get(PUBLIC_URL_VAR) or given[URL_VAR],
        token_ttl=_token_ttl(env),
        outbound_trunk_id=env.get(TRUNK_VAR) or None,
    )
