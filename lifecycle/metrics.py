"""Prometheus metrics of calls: memory readiness, why memory was off, saves, journals and
sweeps, session usage.

Labels are codes and model names only, never ids or numbers. Job processes write them to the
worker's multiprocess directory when one is configured (`worker.agent.build_server`).
"""

from __future__ import annotations

from typing import Any, Final

from livekit.agents import AgentSession, CloseEvent
from livekit.agents.metrics import LLMModelUsage, STTModelUsage, TTSModelUsage
from prometheus_client import Counter, Histogram

from infra.prometheus_dir import ensure_multiprocess_dir
from memory.extraction import register_metrics

ensure_multiprocess_dir()  # before the first metric: see infra.prometheus_dir
register_metrics()  # the memory core's (an add loads them otherwise): shown from the start

MEMORY_READY_SECONDS: Final = Histogram(
    "caller_memory_call_memory_ready_seconds",
    "From room open until the greeting could start with memory: recall done, skipped or late.",
    buckets=(0.01, 0.025, 0.05, 0.1, 0.2, 0.35, 0.5, 1.0, 2.0, 5.0, 15.0, 60.0),
)
MEMORY_OFF: Final = Counter(
    "caller_memory_call_memory_off",
    "Calls without memory, or without recalled memory, by reason code.",
    ["reason"],
)
SAVES: Final = Counter(
    "caller_memory_call_saves",
    "The one save at the end of each call, by status (saved, skipped, failed) and reason.",
    ["status", "reason"],
)
JOURNAL_FAILURES: Final = Counter(
    "caller_memory_journal_failures",
    "Call journal writes that failed, by step (open, append, mark, drop, overflow, crashed);"
    " the call never waits for them.",
    ["step"],
)
SWEPT: Final = Counter(
    "caller_memory_journal_swept",
    "Journals of silent jobs the sweeper acted on, by action (saved, failed, interrupted,"
    " dropped) and reason code.",
    ["action", "reason"],
)
SWEEP_FAILURES: Final = Counter(
    "caller_memory_journal_sweep_failures",
    "Sweeps that failed before acting (the database refused the claim), by error type.",
    ["error_type"],
)
HELD_REFUSED: Final = Counter(
    "caller_memory_call_held_tools_refused",
    "Calls of a held tool refused in a live call: a call cannot wait for a person's decision.",
)
LLM_TOKENS: Final = Counter(
    "caller_memory_session_llm_tokens",
    "Conversation LLM tokens of finished calls, by model and direction (input, output).",
    ["model", "direction"],
)
TTS_CHARACTERS: Final = Counter(
    "caller_memory_session_tts_characters",
    "Characters the conversation TTS synthesized in finished calls, by model.",
    ["model"],
)
AUDIO_SECONDS: Final = Counter(
    "caller_memory_session_audio_seconds",
    "Seconds of audio transcribed (stt) or synthesized (tts) in finished calls, by model.",
    ["kind", "model"],
)


def count_memory_off(reason: str) -> None:
    MEMORY_OFF.labels(reason=reason).inc()


def count_save(status: str, reason: str | None) -> None:
    SAVES.labels(status=status, reason=reason or "none").inc()


def count_journal_failure(step: str) -> None:
    JOURNAL_FAILURES.labels(step=step).inc()


def count_swept(action: str, reason: str | None) -> None:
    SWEPT.labels(action=action, reason=reason or "none").inc()


def count_sweep_failure(error_type: str) -> None:
    SWEEP_FAILURES.labels(error_type=error_type).inc()


def count_session_usage(session: AgentSession[Any]) -> None:
    """Count the session's model usage once, when it closes."""

    def on_close(_: CloseEvent) -> None:
        session.off("close", on_close)
        record_usage(session.usage.model_usage)

    session.on("close", on_close)


def record_usage(usages: list[Any]) -> None:
    for usage in usages:
        if isinstance(usage, LLMModelUsage):
            LLM_TOKENS.labels(model=usage.model, direction="input").inc(usage.input_tokens)
            LLM_TOKENS.labels(model=usage.model, direction="output").inc(usage.output_tokens)
        elif isinstance(usage, TTSModelUsage):
            TTS_CHARACTERS.labels(model=usage.model).inc(usage.characters_count)
            AUDIO_SECONDS.labels(kind="tts", model=usage.model).inc(usage.audio_duration)
        elif isinstance(usage, STTModelUsage):
            AUDIO_SECONDS.labels(kind="stt", model=usage.model).inc(usage.audio_duration)
