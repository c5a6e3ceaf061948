"""Extraction telemetry: model, tokens, latency, outcome; never any memory text."""

from __future__ import annotations

import json
import logging

import pytest
from prometheus_client import REGISTRY

from infra.logs import LogFormat, record_formatter
from memory.api import Memory
from testkit.model_server import ModelServer
from tests.memory.helpers import add_op, update_op

SECRETS = [
    "+34111222333",
    "my dog is called Bartholomew",
    "Owns a dog called Bartholomew.",
    "Prefers calls after 16:00.",
    "Discussed the dog and callback time.",
    "Remember pet names carefully.",
]


def _all_text(records: list[logging.LogRecord]) -> str:
    return "\n".join(f"{r.getMessage()} {vars(r)!r}" for r in records)


async def test_a_full_add_logs_no_memory_text(
    memory: Memory, model_server: ModelServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    model_server.answer([add_op(SECRETS[3])], "First call.")
    assert (await memory.add("seed", "support", SECRETS[0])).error is None
    model_server.answer(
        [add_op(SECRETS[2]), update_op("f1", "Prefers calls after 17:00.")], SECRETS[4]
    )
    result = await memory.add(
        [{"role": "user", "content": SECRETS[1]}],
        "support",
        SECRETS[0],
        instructions=SECRETS[5],
    )
    assert result.error is None
    model_server.answer_text("not json")
    assert (await memory.add(SECRETS[1], "support", SECRETS[0])).error is not None
    text = _all_text(caplog.records)
    for secret in SECRETS:
        assert secret not in text
    events = [r for r in caplog.records if r.getMessage() == "memory.extraction"]
    assert len(events) == 3
    saved = vars(events[1])
    assert saved["outcome"] == "saved" and saved["error_code"] is None
    assert saved["model"] == "openai/gpt-5.6-luna"
    assert (saved["prompt_tokens"], saved["completion_tokens"]) == (11, 7)
    assert saved["latency_ms"] >= 0
    failed = vars(events[2])
    assert (failed["outcome"], failed["error_code"]) == ("failed", "memory_invalid_model_output")


@pytest.mark.parametrize("fmt", ["console", "json"])
async def test_rendered_logs_hold_no_memory_text(
    memory: Memory, model_server: ModelServer, caplog: pytest.LogCaptureFixture, fmt: LogFormat
) -> None:
    caplog.set_level(logging.DEBUG)
    model_server.answer([add_op(SECRETS[2])], SECRETS[4])
    result = await memory.add(SECRETS[1], "support", SECRETS[0], instructions=SECRETS[5])
    assert result.error is None
    formatter = record_formatter(fmt)
    rendered = [formatter.format(record) for record in caplog.records]
    assert any("memory.extraction" in line for line in rendered)
    if fmt == "json":
        assert all(isinstance(json.loads(line), dict) for line in rendered)
    for secret in SECRETS:
        assert all(secret not in line for line in rendered)


def _sample(name: str, labels: dict[str, str] | None = None) -> float:
    return REGISTRY.get_sample_value(name, labels or {}) or 0.0


async def test_extraction_metrics_move_with_each_add(
    memory: Memory, model_server: ModelServer
) -> None:
    saved = {"outcome": "saved", "code": "none"}
    invalid = {"outcome": "failed", "code": "memory_invalid_model_output"}
    before = (
        _sample("caller_memory_extractions_total", saved),
        _sample("caller_memory_extractions_total", invalid),
        _sample("caller_memory_extraction_tokens_total", {"kind": "prompt"}),
        _sample("caller_memory_extraction_seconds_count"),
    )
    model_server.answer([add_op("Likes tea.")], "Tea.")
    assert (await memory.add("I like tea", "support", "+34600")).error is None
    model_server.answer_text("not json")
    assert (await memory.add("I like tea", "support", "+34600")).error is not None
    after = (
        _sample("caller_memory_extractions_total", saved),
        _sample("caller_memory_extractions_total", invalid),
        _sample("caller_memory_extraction_tokens_total", {"kind": "prompt"}),
        _sample("caller_memory_extraction_seconds_count"),
    )
    assert after[0] - before[0] == 1 and after[1] - before[1] == 1
    assert after[2] - before[2] == 22  # the stand-in reports 11 prompt tokens per answer
    assert after[3] - before[3] == 2
