"""Optional spans for recall and save: content-free attributes, exported when configured."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import asyncpg
import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from infra import tracing
from memory.api import open_memory
from memory.config import MemoryConfig
from memory.store._facts import MemoryStore
from testkit.model_server import ModelServer
from testkit.otlp_collector import otlp_collector
from tests.memory.helpers import add_op

pytestmark = pytest.mark.processes  # starts processes: not in `make check`

USER = "+34600111222"
SECRET = "the cat is called Whiskers"
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracing.use(provider)
    yield exporter
    tracing.use(None)


async def test_recall_and_save_spans_carry_no_content(
    pool: asyncpg.Pool, model_server: ModelServer, spans: InMemorySpanExporter
) -> None:
    config = MemoryConfig(base_url=model_server.url, api_key="k")
    memory = open_memory(MemoryStore(pool), config)
    model_server.answer([add_op(SECRET)], f"Talked about {SECRET}.")
    assert (await memory.add(f"User: {SECRET}", "support", USER)).error is None
    assert (await memory.recall("support", USER)).error is None
    assert (await memory.recall("support", USER, 101)).error is not None  # past the limit
    save, recall, refused = spans.get_finished_spans()
    assert (save.name, recall.name, refused.name) == (
        "memory.save",
        "memory.recall",
        "memory.recall",
    )
    assert save.attributes is not None and save.attributes["memory.outcome"] == "ok"
    assert save.attributes["memory.agent_id"] == "support"
    assert isinstance(save.attributes["memory.prompt_tokens"], int)
    assert recall.attributes is not None and recall.attributes["memory.facts"] == 1
    assert refused.attributes is not None
    assert refused.attributes["memory.error_code"] == "memory_invalid_request"
    for span in (save, recall, refused):
        rendered = str(span.to_json())
        assert USER not in rendered and "Whiskers" not in rendered


async def test_without_an_exporter_there_are_no_spans(
    pool: asyncpg.Pool, spans: InMemorySpanExporter
) -> None:
    tracing.use(None)
    memory = open_memory(MemoryStore(pool), MemoryConfig())
    assert (await memory.recall("support", USER)).error is None
    assert spans.get_finished_spans() == ()


@pytest.fixture
async def collector() -> AsyncIterator[tuple[str, list[bytes]]]:
    async with otlp_collector() as (endpoint, received):
        yield endpoint, received


async def test_the_endpoint_variable_exports_over_otlp(
    database_env: dict[str, str], collector: tuple[str, list[bytes]]
) -> None:
    endpoint, received = collector
    env = {**os.environ, **database_env, "OTEL_EXPORTER_OTLP_ENDPOINT": endpoint}
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "memory",
        "recall",
        "support",
        USER,
        env=env,
        cwd=ROOT,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    _, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 0, err.decode()
    exported = b"".join(received)
    assert b"memory.recall" in exported and b"memory.agent_id" in exported
    assert USER.encode() not in exported
