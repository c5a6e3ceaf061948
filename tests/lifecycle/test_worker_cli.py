"""The worker's command line names a missing variable instead of printing a stack trace."""

from __future__ import annotations

import asyncio
import os
import sys

import pytest

from callmemory import environment
from memory.config import ConfigError
from worker.catalog import Catalog, agents
from worker.config import LIVEKIT_NEEDED, WorkerConfig, worker_config, worker_requirements
from worker.startup import served_agent

pytestmark = pytest.mark.processes  # starts processes: not in `make check`


def worker_config_from(env: dict[str, str]) -> WorkerConfig:
    return worker_config(environment.read(env, required=worker_requirements(False)))


def migrate_on_start(env: dict[str, str]) -> bool:
    return environment.read(env).migrate_on_start


BASE_ENV = {k: v for k, v in os.environ.items() if not k.startswith(("LIVEKIT_", "OPENAI_"))}


async def run_worker(*args: str, env: dict[str, str]) -> tuple[int, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "worker.agent",
        *args,
        env={**BASE_ENV, **env},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    _, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode is not None
    return proc.returncode, err.decode()


@pytest.mark.parametrize(
    ("env", "missing"),
    [
        ({}, "LIVEKIT_URL"),
        ({"LIVEKIT_URL": "ws://127.0.0.1:1"}, "LIVEKIT_API_KEY"),
        ({"LIVEKIT_URL": "ws://127.0.0.1:1", "LIVEKIT_API_KEY": "k"}, "LIVEKIT_API_SECRET"),
        (
            {"LIVEKIT_URL": "ws://127.0.0.1:1", "LIVEKIT_API_KEY": "k", "LIVEKIT_API_SECRET": "s"},
            "OPENAI_API_KEY",
        ),
    ],
)
async def test_start_names_the_missing_variable(env: dict[str, str], missing: str) -> None:
    code, err = await run_worker("start", env=env)
    assert code == 2
    assert f"configuration error: {missing}" in err
    assert "Traceback" not in err


def test_livekit_and_provider_checks_are_pure() -> None:
    with pytest.raises(ConfigError, match="LIVEKIT_API_SECRET"):
        environment.read({"LIVEKIT_URL": "u", "LIVEKIT_API_KEY": "k"}, required=LIVEKIT_NEEDED)
    config = worker_config_from({"OPENAI_API_KEY": "k", "CALL_RECALL_BUDGET_SECONDS": "0.2"})
    assert config.call.recall_budget_seconds == 0.2
    assert config.call.save_timeout_seconds > config.call.memory.timeout_seconds
    with pytest.raises(ConfigError, match="CALL_RECALL_BUDGET_SECONDS"):
        worker_config_from({"OPENAI_API_KEY": "k", "CALL_RECALL_BUDGET_SECONDS": "-1"})
    with pytest.raises(ConfigError, match="CALL_SAVE_TIMEOUT_SECONDS"):
        worker_config_from({"OPENAI_API_KEY": "k", "CALL_SAVE_TIMEOUT_SECONDS": "5"})


def test_worker_serves_one_catalog_agent() -> None:
    catalog = Catalog(agents)
    assert served_agent(catalog, None) == "support"
    with pytest.raises(ConfigError, match="WORKER_AGENT"):
        served_agent(catalog, "nobody")
    assert migrate_on_start({}) and not migrate_on_start({"MEMORY_MIGRATE_ON_START": "0"})
    with pytest.raises(ConfigError, match="MEMORY_MIGRATE_ON_START"):
        migrate_on_start({"MEMORY_MIGRATE_ON_START": "maybe"})


async def test_help_runs_with_no_configuration_and_no_database() -> None:
    # an image build runs these before any variable exists; DATABASE_URL points nowhere
    code, err = await run_worker("--help", env={"DATABASE_URL": "postgresql://127.0.0.1:1/none"})
    assert code == 0
    assert "configuration error" not in err and "Traceback" not in err
