"""The web process's LiveKit settings, read from the environment."""

from __future__ import annotations

from datetime import timedelta

import pytest

from callmemory import environment
from memory.config import ConfigError
from worker.voice_settings import (
    DEFAULT_TOKEN_TTL,
    LIVEKIT_TOGETHER,
    VoiceSettings,
    voice_settings,
)


def load_voice_settings(env: dict[str, str]) -> VoiceSettings | None:
    return voice_settings(environment.read(env, required=(LIVEKIT_TOGETHER,)))


FULL = {"LIVEKIT_URL": "wss://x.livekit.cloud", "LIVEKIT_API_KEY": "k", "LIVEKIT_API_SECRET": "s"}


def test_nothing_set_means_no_voice_routes() -> None:
    assert load_voice_settings({}) is None


def test_defaults() -> None:
    settings = load_voice_settings(FULL)
    assert settings is not None
    assert settings.public_url == FULL["LIVEKIT_URL"]
    assert settings.token_ttl == DEFAULT_TOKEN_TTL
    assert settings.outbound_trunk_id is None


def test_overrides() -> None:
    env = FULL | {
        "LIVEKIT_PUBLIC_URL": "wss://public.example",
        "VOICE_ROOM_TOKEN_TTL_SECONDS": "30",
        "SIP_OUTBOUND_TRUNK_ID": "ST_1",
    }
    settings = load_voice_settings(env)
    assert settings is not None
    assert (settings.public_url, settings.token_ttl, settings.outbound_trunk_id) == (
        "wss://public.example",
        timedelta(seconds=30),
        "ST_1",
    )


@pytest.mark.parametrize(
    ("env", "named"),
    [
        ({"LIVEKIT_URL": "wss://x"}, "LIVEKIT_API_KEY"),
        (FULL | {"LIVEKIT_API_SECRET": ""}, "LIVEKIT_API_SECRET"),
        (FULL | {"VOICE_ROOM_TOKEN_TTL_SECONDS": "29"}, "VOICE_ROOM_TOKEN_TTL_SECONDS"),
        (FULL | {"VOICE_ROOM_TOKEN_TTL_SECONDS": "3601"}, "VOICE_ROOM_TOKEN_TTL_SECONDS"),
        (FULL | {"VOICE_ROOM_TOKEN_TTL_SECONDS": "10m"}, "VOICE_ROOM_TOKEN_TTL_SECONDS"),
    ],
)
def test_bad_configuration_names_the_variable(env: dict[str, str], named: str) -> None:
    with pytest.raises(ConfigError, match=named):
        load_voice_settings(env)


def test_the_boundaries_are_accepted() -> None:
    for seconds in ("30", "3600"):
        assert load_voice_settings(FULL | {"VOICE_ROOM_TOKEN_TTL_SECONDS": seconds}) is not None
