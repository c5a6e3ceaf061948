"""An attached agent's file as a process runs it: one-line errors at import, and the embedded
Postgres started by the worker's main process only, never by a job."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest
from livekit.agents import AgentServer

from callmemory import PHONE_CALLERS, CallerMemory
from callmemory.config import SHUTDOWN_PROCESS_TIMEOUT_MARGIN, CallConfig
from callmemory.process import (
    NO_DATABASE_IN_JOB,
    job_database_url,
    prepare_database,
    serves_calls,
)
from memory.config import ConfigError
from tests.config.test_processes import BASE_ENV

pytestmark = pytest.mark.processes  # starts processes: not in `make check`

ROOT = Path(__file__).resolve().parents[2]
SHOW_URL = "import os, sys; sys.argv = ['agent.py', {cmd!r}]; import examples.{name}; "


async def python(code: str, env: dict[str, str], cwd: Path) -> tuple[int, str, str]:
    base = {k: v for k, v in BASE_ENV.items() if k not in ("DATABASE_URL", "MEMORY_PGDATA")}
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        code,
        env={**base, "PYTHONPATH": str(ROOT), **env},
        cwd=cwd,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 90)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


@pytest.mark.parametrize("example", ["front_desk", "assistant"])
async def test_a_malformed_call_variable_at_import_is_one_line(
    tmp_path: Path, example: str
) -> None:
    env = {"CALL_RECALL_BUDGET_SECONDS": "soon", "DATABASE_URL": "postgresql://127.0.0.1:1/x"}
    code, _, err = await python(f"import examples.{example}", env, tmp_path)
    assert code == 2 and "Traceback" not in err
    [line] = [line for line in err.splitlines() if line.strip()]
    assert line.startswith("configuration error: CALL_RECALL_BUDGET_SECONDS: ")


async def test_the_main_process_of_a_serving_command_starts_the_embedded_postgres(
    tmp_path: Path, pgdata_dir: Path
) -> None:
    env = {"MEMORY_PGDATA": str(pgdata_dir)}
    show = SHOW_URL.format(cmd="console", name="front_desk") + "print(os.environ['DATABASE_URL'])"
    code, out, err = await python(show, env, tmp_path)
    assert code == 0, err
    assert out.splitlines()[-1].startswith("postgresql://")  # exported: jobs inherit it
    assert (pgdata_dir / "PG_VERSION").is_file()


async def test_download_files_and_help_start_no_database(tmp_path: Path) -> None:
    env = {"MEMORY_PGDATA": str(tmp_path / "pgdata")}
    show = SHOW_URL.format(cmd="download-files", name="front_desk")
    code, out, err = await python(show + "print(os.environ.get('DATABASE_URL'))", env, tmp_path)
    assert (code, out.strip()) == (0, "None"), err
    assert not (tmp_path / "pgdata").exists()


@pytest.mark.parametrize(
    ("argv", "main_process", "serves"),
    [
        (["agent.py", "start"], True, True),
        (["agent.py", "dev"], True, True),
        (["agent.py", "console"], True, True),
        (["agent.py", "connect", "--room", "r"], True, True),
        (["agent.py", "start"], False, False),  # a job process (or livekit's forkserver)
        (["agent.py", "download-files"], True, False),
        (["agent.py", "--help"], True, False),
        (["agent.py"], True, False),
        (["pytest", "tests"], True, False),
    ],
)
def test_only_a_main_process_about_to_serve_calls_prepares_the_database(
    argv: list[str], main_process: bool, serves: bool
) -> None:
    assert serves_calls(argv, main_process=main_process) is serves


def test_a_job_never_starts_the_database_it_names_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as refused:
        job_database_url(CallConfig(data_dir=str(tmp_path)))
    assert str(refused.value) == NO_DATABASE_IN_JOB and "\n" not in NO_DATABASE_IN_JOB
    assert str(refused.value).startswith("DATABASE_URL: ")
    prepare_database(CallConfig(data_dir=str(tmp_path)), ["agent.py", "start"], main_process=False)
    assert not any(tmp_path.iterdir())  # a child process starts nothing
    given = CallConfig(database_url="postgresql://db/x")
    assert job_database_url(given) == "postgresql://db/x"


def test_the_server_gets_a_shutdown_timeout_its_jobs_outlive_their_save(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("STACKBONE_MEMORY_TIMEOUT_SECONDS", "4")
    monkeypatch.setenv("CALL_SAVE_TIMEOUT_SECONDS", "12")
    server = AgentServer()
    memory = CallerMemory.from_env("front-desk", defaults=PHONE_CALLERS, server=server)
    expected = 12 + SHUTDOWN_PROCESS_TIMEOUT_MARGIN
    assert memory.shutdown_process_timeout == expected
    assert server._shutdown_process_timeout == expected  # livekit's own setting, read back
    assert os.environ.get("CALL_SAVE_TIMEOUT_SECONDS") == "12"
