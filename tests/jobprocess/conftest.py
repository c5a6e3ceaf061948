"""Fixtures for tests that run the worker as its own process, with real job processes."""

from __future__ import annotations

import asyncpg
import pytest

from memory.store._settings import offer_code_bindings
from testkit.job_runner import AGENT
from testkit.model_server import ModelServer
from testkit.worker_process import free_port, worker_environment

__all__ = ["free_port", "worker_env"]


@pytest.fixture
async def worker_env(
    database_url: str, model_server: ModelServer, pool: asyncpg.Pool
) -> dict[str, str]:
    """The worker's whole environment: this test's database and provider, no LiveKit server
    (the URL is a closed local port), nothing inherited that configures the service."""
    await offer_code_bindings(pool, {AGENT: "phoneNumber"})
    return worker_environment(database_url, model_server.url)
