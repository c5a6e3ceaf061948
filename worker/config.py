"""Configuration of the voice worker, built from the one settings model (`memory.environment`).

Missing or malformed values raise `ConfigError` naming every such variable, one per line,
which the CLI prints instead of a stack trace.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from callmemory.config import CallConfig, call_config
from memory import environment
from memory.config import ConfigError

REQUIRED_LIVEKIT = ("LIVEKIT_URL", "LIVEKIT_API_KEY", "LIVEKIT_API_SECRET")
DEFAULT_LLM = "gpt-4.1-mini"
DEFAULT_STT = "gpt-4o-mini-transcribe"
DEFAULT_TTS = "gpt-4o-mini-tts"
DEFAULT_VOICE = "ash"
WEB_DATABASE_DEADLINE_VAR = "WEB_DATABASE_DEADLINE_SECONDS"
DEFAULT_WEB_DATABASE_DEADLINE_SECONDS = 2.0


@dataclass(frozen=True, slots=True)
class VoiceModels:
    """The conversation models: any OpenAI-compatible endpoint."""

    base_url: str | None
    api_key: str
    llm: str = DEFAULT_LLM
    stt: str = DEFAULT_STT
    tts: str = DEFAULT_TTS
    voice: str = DEFAULT_VOICE


@dataclass(frozen=True, slots=True)
class WorkerConfig:
    models: VoiceModels
    call: CallConfig  # memory on the call: provider, pre-greeting deadline, save timeout


LIVEKIT_NEEDED: Final = tuple(
    environment.Required((name,), "the worker needs a LiveKit deployment")
    for name in REQUIRED_LIVEKIT
)
VOICE_KEY_NEEDED: Final = environment.Required(
    ("OPENAI_API_KEY", "VOICE_API_KEY"), "needed for STT/LLM/TTS"
)


def worker_requirements(needs_livekit: bool) -> tuple[environment.Required, ...]:
    """What the worker's main process needs: LiveKit (to serve calls) and the voice key."""
    return (*LIVEKIT_NEEDED, VOICE_KEY_NEEDED) if needs_livekit else (VOICE_KEY_NEEDED,)


def require_livekit(env: Mapping[str, str] | None = None) -> None:
    """The worker needs a LiveKit deployment; names every missing variable."""
    environment.read(env, required=LIVEKIT_NEEDED)


def load_voice_models(env: Mapping[str, str] | None = None) -> VoiceModels:
    return voice_models(environment.read(env, required=(VOICE_KEY_NEEDED,)))


def voice_models(env: environment.Environment) -> VoiceModels:
    api_key = env.voice_api_key or env.openai_api_key
    if not api_key:
        raise ConfigError("OPENAI_API_KEY (or VOICE_API_KEY): is not set; needed for STT/LLM/TTS")
    return VoiceModels(
        base_url=env.voice_base_url or env.openai_base_url,
        api_key=api_key,
        llm=env.voice_llm_model,
        stt=env.voice_stt_model,
        tts=env.voice_tts_model,
        voice=env.voice_tts_voice,
    )


def load_worker_config(
    env: Mapping[str, str] | None = None, *, needs_livekit: bool = False
) -> WorkerConfig:
    """The worker's whole configuration; every missing or invalid variable named at once."""
    settings = environment.read(env, required=worker_requirements(needs_livekit))
    return WorkerConfig(models=voice_models(settings), call=call_config(settings))


def web_database_deadline(env: Mapping[str, str] | None = None) -> float:
    """How long any HTTP route (and `/healthz`) may wait for the database."""
    return environment.read(env).web_database_deadline_seconds
