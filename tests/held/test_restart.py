"""A decision pending across a restart of the web process, on each chat wire: a real
`python -m worker.http` parks a turn and is stopped; a new one refuses the session with 409
and continues the turn when a person decides (the pending call lives in Postgres, not in the
process). AG-UI's resume through a second app: tests/agui/test_held_faults.py."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from testkit.model_server import ModelServer
from tests.config.test_processes import BASE_ENV
from tests.held.conftest import ADMIN_KEY, CONVERSATION_MODEL, KEYS, bearer, ran
from tests.held.outside import AGENTS
from tests.held.scripts import CUSTOMER, HEADERS, REFUND, refund, wire_request
from tests.web.test_web_process import free_port, wait_healthy

pytestmark = pytest.mark.processes  # starts processes: not in `make check`
ROOT = Path(__file__).resolve().parents[2]
Start = Callable[[], Awaitable[str]]


@asynccontextmanager
async def web_process(env: dict[str, str], cwd: Path) -> AsyncIterator[str]:
    port = free_port()
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "worker.http",
        env=env | {"PORT": str(port)},
        cwd=cwd,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        await wait_healthy(f"http://127.0.0.1:{port}/healthz")
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        await asyncio.wait_for(process.wait(), 20)


def env_of(
    team: Path, database_url: str, model_server: ModelServer, ran_file: Path
) -> dict[str, str]:
    return {
        **{k: v for k, v in BASE_ENV.items() if not k.startswith(("CHAT_", "AGENTS"))},
        "PYTHONPATH": f"{team}:{ROOT}",
        "AGENTS": AGENTS,
        "DATABASE_URL": database_url,
        "MEMORY_API_KEYS": json.dumps(KEYS),
        "CHAT_BASE_URL": model_server.url,
        "CHAT_API_KEY": "conversation-key",
        "CHAT_MODEL": CONVERSATION_MODEL,
        "STACKBONE_MEMORY_BASE_URL": model_server.url,
        "STACKBONE_MEMORY_API_KEY": "test-key",
        "WEB_HOST": "127.0.0.1",
        "HELD_RAN": str(ran_file),
    }


async def post(url: str, body: dict[str, Any], headers: dict[str, str]) -> tuple[int, Any]:
    async with aiohttp.ClientSession() as http, http.post(url, json=body, headers=headers) as r:
        return r.status, await r.json()


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
async def test_a_pending_decision_survives_a_restart(
    team: Path, ran_file: Path, database_url: str, model_server: ModelServer, wire: str
) -> None:
    env = env_of(team, database_url, model_server, ran_file)
    path, chat, key = wire_request(wire, "Refund A-1")
    refund(model_server)
    async with web_process(env, team) as web:
        status, parked = await post(f"{web}{path}", chat, key | HEADERS)
        assert status == 200, parked
    pending = parked["stackbone"]["decision"]
    async with web_process(env, team) as web:
        status, body = await post(f"{web}{path}", chat, key | HEADERS)
        assert status == 409 and body["error"]["code"] == "decision_pending"
        model_server.answer_text("Refunded after the restart.")
        url = f"{web}/api/chat/decisions/{pending['id']}"
        status, body = await post(url, {"decision": "approve"}, bearer(ADMIN_KEY))
        assert status == 200, body
        assert body["reply"] == "Refunded after the restart."
    [done] = ran(ran_file)
    assert done == {
        "tool": "issue_refund",
        "arguments": REFUND,
        "user": CUSTOMER,
        "agent": "refunds",
    }
