"""Both processes check the whole model first: every problem in one message, exit code 2."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.processes  # starts processes: not in `make check`

PREFIXES = ("LIVEKIT_", "OPENAI_", "VOICE_", "WEB_", "CALL_", "STACKBONE_", "MEMORY_API")
BASE_ENV = {k: v for k, v in os.environ.items() if not k.startswith(PREFIXES)}
BASE_ENV.pop("PORT", None)


async def run(module: str, *args: str, env: dict[str, str], cwd: Path) -> tuple[int, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        module,
        *args,
        env={**BASE_ENV, **env},
        cwd=cwd,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    _, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode is not None
    return proc.returncode, err.decode()


def named(err: str) -> list[str]:
    prefix = "configuration error: "
    return [line.removeprefix(prefix).split(":")[0] for line in err.splitlines()]


async def test_web_names_every_bad_variable_in_one_message(tmp_path: Path) -> None:
    env = {
        "PORT": "http",
        "WEB_MAX_CONNECTIONS": "many",
        "LIVEKIT_URL": "ws://127.0.0.1:1",  # without its key and secret
        "MEMORY_API_KEYS": "[1]",
        "DATABASE_URL": "postgresql://127.0.0.1:1/never",
    }
    code, err = await run("worker.http", env=env, cwd=tmp_path)
    assert code == 2 and "Traceback" not in err
    assert sorted(named(err)) == sorted(
        ["MEMORY_API_KEYS", "LIVEKIT_API_KEY", "LIVEKIT_API_SECRET", "PORT", "WEB_MAX_CONNECTIONS"]
    )
    assert "http" not in err.replace("http.", "")


async def test_worker_names_every_missing_and_bad_variable(tmp_path: Path) -> None:
    env = {
        "LIVEKIT_URL": "ws://127.0.0.1:1",
        "CALL_RECALL_BUDGET_SECONDS": "0",
        "LOG_FORMAT": "xml",
        "WORKER_AGENT": "nobody",
    }
    code, err = await run("worker.agent", "start", env=env, cwd=tmp_path)
    assert code == 2 and "Traceback" not in err
    assert named(err) == [
        "LIVEKIT_API_KEY",
        "LIVEKIT_API_SECRET",
        "OPENAI_API_KEY (or VOICE_API_KEY)",
        "CALL_RECALL_BUDGET_SECONDS",
        "LOG_FORMAT",
        "WORKER_AGENT",
    ]


async def test_env_local_is_read_and_the_environment_wins(tmp_path: Path) -> None:
    (tmp_path / ".env.local").write_text(
        "LIVEKIT_URL=ws://127.0.0.1:1\nLIVEKIT_API_KEY=k\nWEB_MAX_CONNECTIONS=many\n"
        "CALL_RECALL_BUDGET_SECONDS=-1\n"
    )
    env = {"CALL_RECALL_BUDGET_SECONDS": "0.2", "OPENAI_API_KEY": "sk-test"}
    code, err = await run("worker.agent", "start", env=env, cwd=tmp_path)
    assert code == 2 and "Traceback" not in err
    assert named(err) == ["LIVEKIT_API_SECRET", "WEB_MAX_CONNECTIONS"]
