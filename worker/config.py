"""Configuration of the voice worker, read once from the environment.

Missing or malformed values raise `ConfigError` with a message naming the variable, which the
CLI prints instead of a stack trace.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from callmemory.config import CallConfig, load_call_config, seconds
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


def require_livekit(env: Mapping[str, str] = os.environ) -> None:
    """The worker needs a LiveKit deployment; name the first missing variable."""
    for name in REQUIRED_LIVEKIT:
        if not env.get(name):
            raise ConfigError(f"{name} is not set: the worker needs a LiveKit deployment")


def load_voice_models(env: Mapping[str, str] = os.environ) -> VoiceModels:
    api_key = env.get("VOICE_API_KEY") or env.get("OPENAI_API_KEY")
    if not api_key:
        raise ConfigError("OPENAI_API_KEY (or VOICE_API_KEY) is not set: needed for STT/LLM/TTS")
    return VoiceModels(
        base_url=env.get("VOICE_BASE_URL") or env.get("OPENAI_BASE_URL") or None,
        api_key=api_key,
        llm=env.get("VOICE_LLM_MODEL") or DEFAULT_LLM,
        stt=env.get("VOICE_STT_MODEL") or DEFAULT_STT,
        tts=env.get("VOICE_TTS_MODEL") or DEFAULT_TTS,
        voice=env.get("VOICE_TTS_VOICE") or DEFAULT_VOICE,
    )


def load_worker_config(env: Mapping[str, str] = os.environ) -> WorkerConfig:
    return WorkerConfig(models=load_voice_models(env), call=load_call_config(env))


def web_database_deadline(env: Mapping[str, str] = os.environ) -> float:
    """How long any HTTP route (and `/healthz`) may wait for the database."""
    return seconds(env, WEB_DATABASE_DEADLINE_VAR, DEFAULT_WEB_DATABASE_DEADLINE_SECONDS)
