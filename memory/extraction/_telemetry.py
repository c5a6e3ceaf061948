"""One structured event and its metrics per extraction: model, tokens, latency and outcome,
never content. The metrics (prometheus_client) load with the first add, or at the start of a
process that serves them (`memory.extraction.register_metrics`)."""

from __future__ import annotations

from dataclasses import dataclass

import structlog

log = structlog.get_logger("memory.telemetry")


@dataclass(slots=True)
class ExtractionRecord:
    """Filled in while an add runs; emitted once when it ends, whatever the outcome."""

    agent_id: str
    model: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    latency_ms: float | None = None
    outcome: str = "not_started"
    error_code: str | None = None

    def emit(self) -> None:
        from memory.extraction._metrics import observe_extraction  # noqa: PLC0415  (adds only)

        observe_extraction(
            outcome=self.outcome,
            error_code=self.error_code,
            latency_ms=self.latency_ms,
            prompt_tokens=self.prompt_tokens,
            completion_tokens=self.completion_tokens,
        )
        log.info(
            "memory.extraction",
            agent_id=self.agent_id,
            model=self.model,
            prompt_tokens=self.prompt_tokens,
            completion_tokens=self.completion_tokens,
            latency_ms=None if self.latency_ms is None else round(self.latency_ms, 1),
            outcome=self.outcome,
            error_code=self.error_code,
        )
