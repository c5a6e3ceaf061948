"""Fixtures for tests that run the worker as its own process, with real job processes."""

from __future__ import annotations

import os
import socket

import asyncpg
import pytest

from memory.store._settings import offer_code_bindings
from testkit.job_runner import AGENT
from testkit.model_server import ModelServer

FOREIGN = ("LIVEKIT_", "OPENAI_", "VOICE_", "WEB_", "CALL_", "STACKBONE_", "MEMORY_", "OTEL_")
FOREIGN_NAMES = {"DATABASE_URL", "LOG_FORMAT", "PROMETHEUS_MULTIPROC_DIR", "WORKER_AGENT"}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
async def worker_env(
    database_url: str, model_server: ModelServer, pool: asyncpg.Pool
) -> dict[str, str]:
    """The worker's whole environment: this test's database and provider, no LiveKit server
    (the URL is a closed local port), nothing inherited that configures the service."""
    base = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(FOREIGN) and name not in FOREIGN_NAMES
    }
    await offer_code_bindings(pool, {AGENT: "phoneNumber"})
    return {
        **base,
        "DATABASE_URL": database_url,
        "LIVEKIT_URL": f"ws://127.0.0.1:{free_port()}",
        "LIVEKIT_API_KEY": "test-livekit-key",
        "LIVEKIT_API_SECRET": "test-livekit-secret-0123456789abcdef0123",
        "OPENAI_API_KEY": "voice-key-unused-by-fakes",
        "STACKBONE_MEMORY_BASE_URL": model_server.url,
        "STACKBONE_MEMORY_API_KEY": "test-key",
        "STACKBONE_MEMORY_TIMEOUT_SECONDS": "4",
        "CALL_SAVE_TIMEOUT_SECONDS": "6",
    }
