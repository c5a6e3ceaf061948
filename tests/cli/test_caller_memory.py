"""`caller-memory`: the HTTP API's bodies on stdout, one line and exit 2 for bad input."""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from testkit.model_server import ModelServer
from tests.memory.helpers import add_op

pytestmark = pytest.mark.processes  # starts processes: not in `make check`

ROOT = Path(__file__).resolve().parents[2]
COMMAND = Path(sys.executable).with_name("caller-memory")  # the installed console script
USER = "+34111111111"
CAMEL = re.compile(r"^[a-z][a-zA-Z]*$")
STRIPPED = ("LIVEKIT_", "OPENAI_", "STACKBONE_", "CALL_", "WEB_", "VOICE_")


async def run(*args: str, env: dict[str, str], cwd: Path = ROOT) -> tuple[int, str, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(STRIPPED)}
    proc = await asyncio.create_subprocess_exec(
        str(COMMAND),
        *args,
        env={**base, **env},
        cwd=cwd,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 90)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


def keys_and_timestamps(value: Any) -> tuple[set[str], list[str]]:
    """Every key of a JSON value, and every value of a key ending in `At`/`From`/`To`."""
    keys: set[str] = set()
    stamps: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            keys.add(key)
            if key.endswith(("At", "From", "To")) and item is not None:
                stamps.append(item)
            more_keys, more_stamps = keys_and_timestamps(item)
            keys |= more_keys
            stamps += more_stamps
    elif isinstance(value, list):
        for item in value:
            more_keys, more_stamps = keys_and_timestamps(item)
            keys |= more_keys
            stamps += more_stamps
    return keys, stamps


def assert_api_shaped(body: dict[str, Any]) -> None:
    keys, stamps = keys_and_timestamps(body)
    assert all(CAMEL.match(key) for key in keys), keys
    for stamp in stamps:
        assert datetime.fromisoformat(stamp).tzinfo is not None


async def test_memory_commands_print_the_http_bodies(
    database_url: str, model_server: ModelServer
) -> None:
    env = {
        "DATABASE_URL": database_url,
        "STACKBONE_MEMORY_BASE_URL": model_server.url,
        "STACKBONE_MEMORY_API_KEY": "k",
        "STACKBONE_MEMORY_EMBEDDING_MODEL": "",  # set empty: no embedding model, lexical search
    }
    model_server.answer([add_op("Prefers email.")], "Asked about the invoice.")
    code, out, err = await run(
        "memory", "add", "support", USER, "examples/transcript.json", env=env
    )
    assert code == 0, err
    added = json.loads(out)
    assert_api_shaped(added)
    assert added["revision"] > 0 and [op["op"] for op in added["applied"]] == ["add"]
    recall, history, search = await asyncio.gather(  # reads: together
        run("memory", "recall", "support", USER, "--calls", "100", env=env),
        run("memory", "history", "support", USER, env=env),
        run("memory", "search", "support", "email", "--user", USER, env=env),
    )
    recalled = json.loads(recall[1])
    assert recall[0] == 0 and set(recalled) == {"agentId", "userId", "facts", "calls"}
    assert set(recalled["facts"][0]) == {"id", "content", "createdAt", "updatedAt", "source"}
    assert recalled["facts"][0]["source"]["channel"] == "cli"  # written by `memory add`
    assert_api_shaped(recalled)
    assert history[0] == 0 and json.loads(history[1])["versions"][0]["validTo"] is None
    assert_api_shaped(json.loads(history[1]))
    found = json.loads(search[1])
    assert search[0] == 0 and found["lexicalOnly"] and found["items"][0]["text"] == "Prefers email."
    code, out, _ = await run("memory", "delete-all", "support", USER, env=env)
    assert code == 0 and json.loads(out) == {"agentId": "support", "userId": USER, "deleted": 2}


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (("memory", "recall", "support", USER, "--calls", "101"), "calls"),  # past the limit
        (("memory", "recall", "support", USER, "--calls", "many"), "--calls"),
        (("memory", "recall", "support"), "user_id"),
        (("memory", "add", "support", USER, "no-such-file.json"), "transcript"),
        (("memory", "search", "support", "x", "--mode", "psychic"), "mode"),
        (("memory", "forget", "support"), "forget"),
        (("memory", "recall", "support", USER, "--calls", "9" * 100_000), "--calls"),
        (("memory", "ops", "support", "--after", "9" * 100_000), "--after"),
        (("memory", "ops", "support", "--limit", "\u00b2"), "--limit"),  # a digit int() refuses
        (("docs", "search", "q", "--top-k", "1" * 5_000), "--top-k"),
        (("sessions", "list", "support", "--limit", "1e3"), "--limit"),
    ],
)
async def test_bad_input_is_one_line_and_exit_2(
    database_url: str, args: tuple[str, ...], named: str
) -> None:
    code, out, err = await run(*args, env={"DATABASE_URL": database_url})
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and named in err
    assert err.startswith("error: ") and "Traceback" not in err


async def test_a_transcript_with_a_number_past_the_limits_is_one_line(
    database_url: str, tmp_path: Path
) -> None:
    transcript = tmp_path / "call.json"
    transcript.write_text('[{"role": "user", "content": "hi", "n": ' + "9" * 5_000 + "}]")
    code, out, err = await run(
        "memory", "add", "support", USER, str(transcript), env={"DATABASE_URL": database_url}
    )
    assert code == 2 and out == ""
    assert err.startswith("error: transcript: ") and "[0].n" in err and "digits" in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


async def test_every_bad_variable_is_named_before_anything_runs(tmp_path: Path) -> None:
    env = {"DATABASE_COMMAND_TIMEOUT_SECONDS": "0", "STACKBONE_MEMORY_TIMEOUT_SECONDS": "soon"}
    code, out, err = await run("memory", "recall", "support", USER, env=env, cwd=tmp_path)
    assert code == 2 and out == ""
    assert [line.split(":")[1].strip() for line in err.splitlines()] == [
        "DATABASE_COMMAND_TIMEOUT_SECONDS",
        "STACKBONE_MEMORY_TIMEOUT_SECONDS",
    ]


async def test_worker_help_and_download_files_need_no_configuration(tmp_path: Path) -> None:
    code, out, err = await run("worker", "--help", env={}, cwd=tmp_path)
    assert code == 0, err
    assert "start" in out and "download-files" in out


async def test_a_missing_provider_key_is_one_line_naming_it(database_url: str) -> None:
    code, out, err = await run(
        "memory",
        "add",
        "support",
        USER,
        "examples/transcript.json",
        env={"DATABASE_URL": database_url},
    )
    assert code == 1 and out == ""
    assert "Traceback" not in err and "APIConnectionError" not in err
    assert [line for line in err.splitlines() if "error:" in line] == [
        "error: memory_model_failed: STACKBONE_MEMORY_API_KEY (or OPENAI_API_KEY) is not set:"
        " the memory model provider needs a key"
    ]
