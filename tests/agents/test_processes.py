"""Real processes: the web process (`python -m worker.http`) with `AGENTS` naming a package
outside this repository (on its `PYTHONPATH`), and an attached worker's main process
registering an agent the web process cannot import. Real Postgres, the local model server."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import asyncpg
import openai
import pytest

from memory.store import registered
from testkit.model_server import ModelServer
from tests.agents.conftest import (
    ADMIN_KEY,
    CONVERSATION_MODEL,
    KEYS,
    RETURNS,
    SHOP_KEY,
    bearer,
    seed_collection,
)
from tests.agents.outside import AGENT, AGENTS, write_package
from tests.agents.test_text_tools import tool_results
from tests.config.test_processes import BASE_ENV
from tests.documents.conftest import EMBEDDING_MODEL
from tests.web.test_web_process import free_port, wait_healthy

ROOT = Path(__file__).resolve().parents[2]
CUSTOMER = "+34600111555"


def team_env(root: Path, database_url: str, model_server: ModelServer) -> dict[str, str]:
    return {
        **{k: v for k, v in BASE_ENV.items() if not k.startswith(("CHAT_", "AGENTS"))},
        "PYTHONPATH": f"{root}:{ROOT}",
        "AGENTS": AGENTS,
        "DATABASE_URL": database_url,
        "MEMORY_API_KEYS": json.dumps(KEYS),
        "CHAT_BASE_URL": model_server.url,
        "CHAT_API_KEY": "conversation-key",
        "CHAT_MODEL": CONVERSATION_MODEL,
        "STACKBONE_MEMORY_BASE_URL": model_server.url,
        "STACKBONE_MEMORY_API_KEY": "test-key",
        "STACKBONE_MEMORY_EMBEDDING_MODEL": EMBEDDING_MODEL,
        "WEB_HOST": "127.0.0.1",
    }


@pytest.fixture(name="team")
def _team(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_package(tmp_path_factory.mktemp("team"))


@pytest.fixture(name="web")
async def _web(team: Path, database_url: str, model_server: ModelServer) -> AsyncIterator[str]:
    port = free_port()
    env = team_env(team, database_url, model_server) | {"PORT": str(port)}
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "worker.http",
        env=env,
        cwd=team,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        await wait_healthy(f"http://127.0.0.1:{port}/healthz")
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        await asyncio.wait_for(process.wait(), 20)


async def get(url: str, key: str = ADMIN_KEY) -> tuple[int, Any]:
    async with aiohttp.ClientSession() as http, http.get(url, headers=bearer(key)) as answer:
        return answer.status, await answer.json()


async def listed(web: str, key: str, size: int) -> list[dict[str, Any]]:
    for _ in range(300):
        _, body = await get(f"{web}/api/memory/agents", key)
        if len(body["agents"]) == size:
            return list(body["agents"])
        await asyncio.sleep(0.05)
    raise AssertionError(body)


async def test_the_web_process_serves_the_teams_agent(
    web: str, pool: asyncpg.Pool, model_server: ModelServer
) -> None:
    [shop] = await listed(web, ADMIN_KEY, 1)
    assert (shop["agentId"], shop["declaredIn"], shop["tools"]) == (
        AGENT,
        f"AGENTS={AGENTS}",
        ["lookup_order"],
    )
    async with aiohttp.ClientSession() as http:
        put = await http.put(
            f"{web}/api/memory/settings/{AGENT}", json={"save": False}, headers=bearer(SHOP_KEY)
        )
        assert put.status == 200 and (await put.json())["value"]["save"] is False
        support = await http.get(f"{web}/api/memory/settings/support", headers=bearer(SHOP_KEY))
        assert support.status == 404  # not declared here, and not the key's either way
    await seed_collection(pool, model_server)
    model_server.call_tool("lookup_order", {"order_id": "A-100"})
    model_server.call_tool("search_docs", {"query": "return"})
    model_server.answer_text("Shipped Monday; thirty days to return.")
    client = openai.AsyncOpenAI(base_url=f"{web}/v1", api_key=SHOP_KEY, max_retries=0)
    try:
        reply = await client.chat.completions.create(
            model=AGENT,
            messages=[{"role": "user", "content": "My order A-100?"}],
            extra_headers={"x-stackbone-identities": json.dumps({"phoneNumber": CUSTOMER})},
        )
    finally:
        await client.close()
    assert reply.choices[0].message.content == "Shipped Monday; thirty days to return."
    last = [r for r in model_server.requests if r.get("model") == CONVERSATION_MODEL][-1]
    order, found = tool_results(last)
    assert order == f"order A-100 of {CUSTOMER} at {AGENT}: shipped on Monday"
    assert RETURNS in found


async def test_an_attached_workers_agent_is_listed_editable_and_cannot_be_loaded(
    web: str, team: Path, database_url: str, model_server: ModelServer
) -> None:
    code = "import sys; sys.argv = ['desk_worker.py', 'start']; import desk_worker"
    env = team_env(team, database_url, model_server) | {"PYTHONPATH": f"{team}:{ROOT}"}
    worker = await asyncio.create_subprocess_exec(
        sys.executable, "-c", code, env=env, cwd=team, stderr=asyncio.subprocess.PIPE
    )
    _, err = await asyncio.wait_for(worker.communicate(), 90)
    assert worker.returncode == 0, err.decode()
    agents = {a["agentId"]: a for a in await listed(web, ADMIN_KEY, 2)}
    desk = agents["front-desk"]
    assert (desk["source"], desk["declaredIn"], desk["loaded"]) == (
        "worker",
        "worker desk_worker.py",
        False,
    )
    async with aiohttp.ClientSession() as http:
        put = await http.put(
            f"{web}/api/memory/settings/front-desk", json={"read": False}, headers=bearer()
        )
        assert put.status == 200 and (await put.json())["origins"]["read"] == "studio"
        chat = await http.post(
            f"{web}/v1/chat/completions",
            json={"model": "front-desk", "messages": [{"role": "user", "content": "Hi"}]},
            headers=bearer(),
        )
        error = (await chat.json())["error"]
    assert chat.status == 503 and error["code"] == "agent_not_loaded"
    assert "front-desk" in error["message"]


async def test_an_agents_path_that_does_not_import_is_one_line(tmp_path: Path) -> None:
    env = {
        **BASE_ENV,
        "AGENTS": "nowhere_to_be_found:agents",
        "DATABASE_URL": "postgresql://127.0.0.1:1/never",
        "PYTHONPATH": str(ROOT),
    }
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "worker.http",
        env=env,
        cwd=tmp_path,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    _, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 2 and "Traceback" not in err.decode()
    [line] = [line for line in err.decode().splitlines() if line.strip()]
    assert line == (
        "configuration error: AGENTS=nowhere_to_be_found:agents:"
        " no module named 'nowhere_to_be_found'"
    )


async def run_worker_file(team: Path, name: str, env: dict[str, str]) -> None:
    code = f"import sys; sys.argv = ['{name}.py', 'start']; import {name}"
    worker = await asyncio.create_subprocess_exec(
        sys.executable, "-c", code, env=env, cwd=team, stderr=asyncio.subprocess.PIPE
    )
    _, err = await asyncio.wait_for(worker.communicate(), 90)
    assert worker.returncode == 0, err.decode()


async def test_two_workers_declaring_one_name_the_last_wins_and_the_conflict_is_kept(
    team: Path, database_url: str, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    other = (team / "desk_worker.py").read_text().replace("read=True", "read=False")
    (team / "desk_other.py").write_text(other)
    env = team_env(team, database_url, model_server)
    await run_worker_file(team, "desk_worker", env)
    await run_worker_file(team, "desk_other", env)
    [row] = await registered(pool)
    assert row.memory.read is False  # the last registration's defaults
    assert (row.declared_in, row.conflict_with) == ("worker desk_other.py", "worker desk_worker.py")
