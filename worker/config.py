"""Configuration of the voice worker, read once from the environment.

Missing or malformed values raise `ConfigError` with a message naming the variable, which the
CLI prints instead of a stack trace.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field

from memory.config import ConfigError, MemoryConfig
from memory.database import PoolTimeouts

REQUIRED_LIVEKIT = ("LIVEKIT_URL", "LIVEKIT_API_KEY", "LIVEKIT_API_SECRET")
DEFAULT_LLM = "gpt-4.1-mini"
DEFAULT_STT = "gpt-4o-mini-transcribe"
DEFAULT_TTS = "gpt-4o-mini-tts"
DEFAULT_VOICE = "ash"
DEFAULT_RECALL_BUDGET_SECONDS = 0.35
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
    memory: MemoryConfig
    recall_budget_seconds: float  # the pre-greeting deadline (lifecycle.opening)
    save_timeout_seconds: float
    database: PoolTimeouts = field(default_factory=PoolTimeouts)


def _seconds(env: Mapping[str, str], name: str, default: float) -> float:
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(f"{name} must be a number of seconds") from None
    if not math.isfinite(value) or value <= 0:
        raise ConfigError(f"{name} must be a finite number greater than 0")
    return value


def require_livekit(env: Mapping[str, str] = os.environ) -> None:
    """The worker needs a LiveKit deployment; name the first missing variable."""
    for name in REQUIRED_LIVEKIT:
        if not env.get(name):
            raise ConfigError(f"{name} is not set: the worker needs a LiveKit deployment")


def load_worker_config(env: Mapping[str, str] = os.environ) -> WorkerConfig:
    api_key = env.get("VOICE_API_KEY") or env.get("OPENAI_API_KEY")
    if not api_key:
        raise ConfigError("OPENAI_API_KEY (or VOICE_API_KEY) is not set: needed for STT/LLM/TTS")
    models = VoiceModels(
        base_url=env.get("VOICE_BASE_URL") or env.get("OPENAI_BASE_URL") or None,
        api_key=api_key,
        llm=env.get("VOICE_LLM_MODEL") or DEFAULT_LLM,
        stt=env.get("VOICE_STT_MODEL") or DEFAULT_STT,
        tts=env.get("VOICE_TTS_MODEL") or DEFAULT_TTS,
        voice=env.get("VOICE_TTS_VOICE") or DEFAULT_VOICE,
    )
    memory = MemoryConfig.from_env(env)
    save_timeout = _seconds(env, "CALL_SAVE_TIMEOUT_SECONDS", memory.timeout_seconds + 10)
    if save_timeout <= memory.timeout_seconds:
        raise ConfigError("CALL_SAVE_TIMEOUT_SECONDS must exceed STACKBONE_MEMORY_TIMEOUT_SECONDS")
    return WorkerConfig(
        models=models,
        memory=memory,
        recall_budget_seconds=_seconds(
            env, "CALL_RECALL_BUDGET_SECONDS", DEFAULT_RECALL_BUDGET_SECONDS
        ),
        save_timeout_seconds=save_timeout,
        database=PoolTimeouts.from_env(env),
    )


def web_database_deadline(env: Mapping[str, str] = os.environ) -> float:
    """How long any HTTP route (and `/healthz`) may wait for the database."""
    return _seconds(env, WEB_DATABASE_DEADLINE_VAR, DEFAULT_WEB_DATABASE_DEADLINE_SECONDS)
