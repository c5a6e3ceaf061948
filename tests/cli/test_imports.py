"""The CLI's commands that run no call load no voice stack: no `livekit` module (nor the
`openai` client, which only a turn's streamed answer uses) is imported by
the `memory`, `docs`, `sessions` or `decisions` commands, read from `python -X importtime` of
the real command against the test database (its whole run, not only `import worker.cli`).
A recall loads neither what only other processes or commands use (`NOT_IN_A_RECALL`) nor the
API's other answer families: read from the modules its process holds at exit (`HELD`), since
the report leaves out what `importlib.import_module` loads (the answers' lazy families)."""

from __future__ import annotations

import asyncio
import json
import os
import sys

import asyncpg
import pytest

from memory.settings import CodeDefaults
from memory.store import Declared, register
from tests.cli.test_caller_memory import ROOT, STRIPPED
from worker.cli import GROUPS, reached_groups

pytestmark = pytest.mark.processes  # starts processes: not in `make check`

COMMANDS = {  # a command line, and a module its work imports (so the report covers the run)
    ("memory", "recall", "support", "+34111111111"): "worker.http.server.answers",
    ("memory", "customers", "support"): "memory.store",
    ("docs", "list"): "memory.documents",
    ("sessions", "list", "support"): "chat.sessions",
    ("decisions", "list"): "chat.decisions",
}

NOT_IN_A_RECALL = ("pydantic_settings", "prometheus_client", "opentelemetry")
"""Packages a recall does not use: settings sources (the environment is a plain model), the
metrics (loaded with an add or by a process serving them) and tracing (with a first span)."""
ANSWERS = "worker.http.server.answers"
HELD = (
    "import atexit, json, sys; atexit.register(lambda: print(json.dumps(sorted(sys.modules))));"
    " from worker.cli import main; sys.exit(main(sys.argv[1:]))"
)
"""`caller-memory` whose last line on stdout lists every module its process held at exit."""


def imported(importtime: str) -> set[str]:
    """The modules an `-X importtime` report names (one per `import time:` line)."""
    lines = (line for line in importtime.splitlines() if line.startswith("import time:"))
    return {line.rsplit("|", 1)[1].strip() for line in lines} - {"package"}


async def run_timed(
    database_url: str, *args: str, env: dict[str, str] | None = None
) -> tuple[int, str, set[str]]:
    """`python -X importtime *args`: exit code, stdout and the modules imported."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(STRIPPED)} | (env or {})
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-X",
        "importtime",
        *args,
        env={**env, "DATABASE_URL": database_url},
        cwd=ROOT,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 90)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), imported(err.decode())


async def test_commands_without_calls_import_no_livekit(
    database_url: str, pool: asyncpg.Pool
) -> None:
    await register(pool, [Declared("support", CodeDefaults(), (), ())], "t", "worker")
    runs = await asyncio.gather(
        *(run_timed(database_url, "-m", "worker.cli", *args) for args in COMMANDS)
    )
    for (args, used), (code, out, modules) in zip(COMMANDS.items(), runs, strict=True):
        assert code == 0, args
        assert isinstance(json.loads(out), dict)  # the command ran and printed its body
        assert used in modules and "worker.http.wires" not in modules
        assert sorted(m for m in modules if m.split(".")[0] in ("livekit", "openai")) == [], args


async def test_a_recall_loads_its_one_answer_and_no_metrics_settings_sources_or_tracing(
    database_url: str,
) -> None:
    args = ("-c", HELD, "memory", "recall", "support", "+34111111112")
    code, out, _ = await run_timed(database_url, *args)
    *body, held = out.splitlines()
    assert code == 0 and json.loads("\n".join(body))["facts"] == []
    modules = set(json.loads(held))
    answers = {m for m in modules if m.startswith(f"{ANSWERS}.")}
    assert answers == {f"{ANSWERS}.base", f"{ANSWERS}.customers"}
    assert sorted(m for m in modules if m.split(".")[0] in NOT_IN_A_RECALL) == []


async def test_the_report_names_livekit_when_it_is_imported(database_url: str) -> None:
    """The check above can fail: a process that imports livekit has it in its report."""
    code, _, modules = await run_timed(database_url, "-c", "import livekit, worker.cli")
    assert code == 0 and {"livekit", "worker.cli"} <= modules


async def test_a_dial_refused_for_its_arguments_loads_no_agents_livekit_or_other_group(
    database_url: str,
) -> None:
    """`dial` checks the number, trunk and identities before it loads `AGENTS` and livekit's
    api, and a top-level command imports none of the command groups."""
    args = ("-m", "worker.cli", "dial", "--agent", "support", "--to", "+34 600", "--trunk", "ST_x")
    env = {"LIVEKIT_URL": "http://127.0.0.1:1", "LIVEKIT_API_KEY": "k", "LIVEKIT_API_SECRET": "s"}
    code, _, modules = await run_timed(database_url, *args, env=env)
    assert code == 2 and "sip.destination" in modules  # refused by the number's check
    assert sorted(m for m in modules if m.split(".")[0] in ("livekit", "openai")) == []
    assert "worker.catalog" not in modules and "worker.memory_commands" not in modules


def test_a_command_line_reaches_its_group_none_or_every_one() -> None:
    commands = {"dial", "web", "worker"}
    assert reached_groups(["memory", "recall"], commands) == ["memory"]
    assert reached_groups(["dial", "--to", "x"], commands) == []
    assert reached_groups([], commands) == list(GROUPS)
    assert reached_groups(["--help"], commands) == list(GROUPS)
    assert reached_groups(["nope"], commands) == list(GROUPS)


async def test_the_web_app_loads_livekits_agents_only_with_an_agent_that_has_tools(
    database_url: str,
) -> None:
    """The web process imports livekit's api (rooms and calls) but not its agents framework:
    the voice documents tool and the conversion of an agent's function tools import it when
    first used (a team's agents with tools have imported it by then)."""
    held = "import json, sys, worker.http.web; print(json.dumps(sorted(sys.modules)))"
    code, out, _ = await run_timed(database_url, "-c", held)
    modules = set(json.loads(out.splitlines()[-1]))
    assert code == 0 and "worker.http.web" in modules and "livekit.api" in modules
    assert sorted(m for m in modules if m.startswith("livekit.agents")) == []
