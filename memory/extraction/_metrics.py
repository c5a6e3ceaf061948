"""Prometheus metrics of the memory core: extractions by outcome, their latency and tokens.

Labels are codes only (outcome, error code, token kind), never agent or user ids, so the series
stay few. In a LiveKit worker with a multiprocess directory, job processes write these to it
and the worker's metrics endpoint aggregates them (prometheus_client multiprocess mode).
"""

from __future__ import annotations

from typing import Final

from prometheus_client import Counter, Histogram

from infra.prometheus_dir import ensure_multiprocess_dir

ensure_multiprocess_dir()  # before the first metric: see infra.prometheus_dir

NO_CODE: Final = "none"

EXTRACTIONS: Final = Counter(
    "caller_memory_extractions",
    "Memory adds (one extraction request each, never retried) by outcome and error code.",
    ["outcome", "code"],
)
CONFLICTS: Final = Counter(
    "caller_memory_conflicts",
    "Adds that found the person's memory changed since they read it (memory_conflict).",
)
EXTRACTION_SECONDS: Final = Histogram(
    "caller_memory_extraction_seconds",
    "Latency of the extraction request to the model provider.",
    buckets=(0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0),
)
EXTRACTION_TOKENS: Final = Counter(
    "caller_memory_extraction_tokens",
    "Tokens the extraction requests used, by kind (prompt, completion).",
    ["kind"],
)


def observe_extraction(
    *,
    outcome: str,
    error_code: str | None,
    latency_ms: float | None,
    prompt_tokens: int | None,
    completion_tokens: int | None,
) -> None:
    """Count one finished add; called once per add, whatever its outcome."""
    EXTRACTIONS.labels(outcome=outcome, code=error_code or NO_CODE).inc()
    if error_code == "memory_conflict":
        CONFLICTS.inc()
    if latency_ms is not None:
        EXTRACTION_SECONDS.observe(latency_ms / 1000)
    if prompt_tokens:
        EXTRACTION_TOKENS.labels(kind="prompt").inc(prompt_tokens)
    if completion_tokens:
        EXTRACTION_TOKENS.labels(kind="completion").inc(completion_tokens)
