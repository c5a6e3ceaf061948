"""Metrics and spans of a call served by a real job process reach the worker's endpoint and
the OTLP collector, like the THREAD executor's (tests/jobrunner/test_metrics.py)."""

from __future__ import annotations

from pathlib import Path

from testkit.model_server import ModelServer
from testkit.otlp_collector import otlp_collector, span_names
from testkit.scripted_call import NUMBER
from testkit.worker_process import worker_process
from tests.jobprocess.conftest import free_port
from tests.jobprocess.test_job_logs import one_call
from tests.jobrunner.test_metrics import sample, scrape


async def test_metrics_and_spans_of_a_job_process(
    worker_env: dict[str, str], model_server: ModelServer, tmp_path: Path
) -> None:
    port = free_port()
    (tmp_path / "metrics").mkdir()  # prometheus_client opens its files there at import
    model_server.answer([], "A short call.")
    async with otlp_collector() as (endpoint, received):
        env = {
            **worker_env,
            "WORKER_METRICS_PORT": str(port),
            "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "metrics"),
            "OTEL_EXPORTER_OTLP_ENDPOINT": endpoint,
        }
        async with worker_process("start", env, cwd=tmp_path) as worker:
            await one_call(worker)
            metrics = await scrape(port)
            spans = span_names(received)  # before the worker stops: sent by the job itself
    assert sample(metrics, "caller_memory_call_saves_total", status="saved") == 1
    assert sample(metrics, "caller_memory_call_memory_ready_seconds_count") == 1
    assert sample(metrics, "caller_memory_extractions_total", outcome="saved") == 1
    assert "lk_agents_active_job_count" in metrics  # livekit's own, same endpoint
    assert sorted(spans) == ["memory.recall", "memory.save"]
    assert NUMBER.encode() not in b"".join(received)
