"""Configuration of the voice worker, built from the one settings model (`callmemory.environment`).

Missing or malformed values raise `ConfigError` naming every such variable, one per line,
which the CLI prints instead of a stack trace.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from callmemory import environment
from callmemory.config import CallConfig, call_config
from callmemory.environment import default
from memory.config import ConfigError, provider_model

REQUIRED_LIVEKIT = ("LIVEKIT_URL", "LIVEKIT_API_KEY", "LIVEKIT_API_SECRET")


@dataclass(frozen=True, slots=True)
class VoiceModels:
    """The conversation models: any OpenAI-compatible endpoint."""

    base_url: str | None
    api_key: str
    llm: str = default("VOICE_LLM_MODEL")
    stt: str = default("VOICE_STT_MODEL")
    tts: str = default("VOICE_TTS_MODEL")
    voice: str = default("VOICE_TTS_VOICE")


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


def voice_models(env: environment.Environment) -> VoiceModels:
    api_key = env.voice_api_key or env.openai_api_key
    if not api_key:
        raise ConfigError("OPENAI_API_KEY (or VOICE_API_KEY): is not set; needed for STT/LLM/TTS")
    return VoiceModels(
        base_url=env.voice_base_url or env.openai_base_url,
        api_key=api_key,
        llm=provider_model(env.voice_llm_model),
        stt=provider_model(env.voice_stt_model),
        tts=provider_model(env.voice_tts_model),
        voice=env.voice_tts_voice,
    )


def worker_config(settings: environment.Environment) -> WorkerConfig:
    return WorkerConfig(models=voice_models(settings), call=call_config(settings))
