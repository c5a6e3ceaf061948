"""The web process as a newcomer runs it: metrics on their own port, a busy port in one line."""

from __future__ import annotations

import asyncio
import os
import re
import socket
import sys
from collections.abc import AsyncIterator

import aiohttp
import pytest

from callmemory import environment
from memory.config import ConfigError

pytestmark = pytest.mark.processes  # starts processes: not in `make check`


def metrics_port(env: dict[str, str]) -> int | None:
    return environment.read(env).web_metrics_port


BASE_ENV = {k: v for k, v in os.environ.items() if not k.startswith(("LIVEKIT_", "WEB_"))}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def start_web(env: dict[str, str]) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "worker.http",
        env={**BASE_ENV, "WEB_HOST": "127.0.0.1", **env},
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )


async def wait_healthy(url: str, within: float = 60) -> None:
    async with aiohttp.ClientSession() as http:
        for _ in range(int(within * 10)):
            try:
                async with http.get(url) as response:
                    if response.status == 200:
                        return
            except aiohttp.ClientConnectionError:
                pass
            await asyncio.sleep(0.1)
    raise TimeoutError(url)


@pytest.fixture
async def web_process(database_url: str) -> AsyncIterator[tuple[int, int]]:
    port, metrics = free_port(), free_port()
    process = await start_web(
        {"DATABASE_URL": database_url, "PORT": str(port), "WEB_METRICS_PORT": str(metrics)}
    )
    try:
        await wait_healthy(f"http://127.0.0.1:{port}/healthz")
        yield port, metrics
    finally:
        process.terminate()
        await asyncio.wait_for(process.wait(), 20)


def counter(text: str, route: str, status: str) -> float:
    pattern = (
        r'caller_memory_http_requests_total\{method="GET",route="'
        + re.escape(route)
        + r'",status="'
        + status
        + r'"\} ([0-9.e+]+)'
    )
    found = re.search(pattern, text)
    return float(found.group(1)) if found else 0.0


async def test_metrics_port_counts_requests_by_route(web_process: tuple[int, int]) -> None:
    port, metrics = web_process
    async with aiohttp.ClientSession() as http:
        async with http.get(f"http://127.0.0.1:{metrics}/metrics") as response:
            before = await response.text()
        for _ in range(3):
            async with http.get(f"http://127.0.0.1:{port}/api/memory/settings/support") as r:
                assert r.status == 401  # no key: counted all the same
        async with http.get(f"http://127.0.0.1:{port}/metrics") as response:
            assert response.status == 404  # metrics never share the API port
        async with http.get(f"http://127.0.0.1:{metrics}/metrics") as response:
            after = await response.text()
    route = "/api/memory/settings/{agentId}"
    assert counter(after, route, "401") - counter(before, route, "401") == 3
    assert "caller_memory_http_request_seconds_bucket" in after


async def test_a_busy_port_is_one_line_naming_the_variable(database_url: str) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        process = await start_web({"DATABASE_URL": database_url, "PORT": str(port)})
        _, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 2
    lines = [line for line in err.decode().splitlines() if line.startswith("configuration error")]
    assert lines == [lines[0]] and f"PORT={port}" in lines[0]
    assert "Traceback" not in err.decode()


@pytest.mark.parametrize(("value", "port"), [("", None), ("1", 1), ("65535", 65535)])
def test_metrics_port_at_its_limits(value: str, port: int | None) -> None:
    assert metrics_port({"WEB_METRICS_PORT": value}) == port


@pytest.mark.parametrize("value", ["0", "65536", "http", "-1"])
def test_metrics_port_past_its_limits(value: str) -> None:
    with pytest.raises(ConfigError, match="WEB_METRICS_PORT"):
        metrics_port({"WEB_METRICS_PORT": value})
