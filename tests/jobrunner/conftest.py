"""Fixtures for job-runner tests: the job's environment, the bound agent, the mock room."""

from __future__ import annotations

from collections.abc import AsyncIterator

import asyncpg
import pytest

from memory.store._settings import offer_code_bindings
from testkit.job_runner import AGENT, FakeCallSide
from testkit.mock_room import MockRoom
from testkit.model_server import ModelServer
from tests.livekit_server import LiveKitServer

SAVE_TIMEOUT = 6.0


@pytest.fixture
async def job_env(
    monkeypatch: pytest.MonkeyPatch,
    database_env: dict[str, str],
    model_server: ModelServer,
    pool: asyncpg.Pool,
) -> None:
    """What a job process reads from its environment: database (through PgBouncer when the
    run is), provider, timeouts."""
    for name, value in database_env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("OPENAI_API_KEY", "voice-key-unused-by-fakes")
    monkeypatch.setenv("STACKBONE_MEMORY_BASE_URL", model_server.url)
    monkeypatch.setenv("STACKBONE_MEMORY_API_KEY", "test-key")
    monkeypatch.setenv("STACKBONE_MEMORY_TIMEOUT_SECONDS", "4")
    monkeypatch.setenv("CALL_SAVE_TIMEOUT_SECONDS", str(SAVE_TIMEOUT))
    monkeypatch.delenv("WORKER_AGENT", raising=False)
    await offer_code_bindings(pool, {AGENT: "phoneNumber"})  # what worker start-up does


@pytest.fixture
def room() -> MockRoom:
    return MockRoom()


@pytest.fixture
def side(room: MockRoom) -> FakeCallSide:
    return FakeCallSide(room)


@pytest.fixture(name="livekit")
async def _livekit(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[LiveKitServer]:
    """LiveKit's server API stand-in, named in the environment the way the worker gets it."""
    server = LiveKitServer()
    await server.start()
    monkeypatch.setenv("LIVEKIT_URL", server.url)
    monkeypatch.setenv("LIVEKIT_API_KEY", server.api_key)
    monkeypatch.setenv("LIVEKIT_API_SECRET", server.api_secret)
    yield server
    await server.stop()
