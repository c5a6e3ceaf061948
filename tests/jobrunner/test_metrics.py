"""The worker's Prometheus endpoint (livekit-agents' own) carries the call and memory metrics."""

from __future__ import annotations

import re
import socket

import aiohttp
import asyncpg
from livekit import rtc

from testkit.fake_devices import wait_until
from testkit.job_runner import FakeCallSide, dispatch, job_server
from testkit.mock_room import SIP, MockRoom, participant
from testkit.model_server import ModelServer
from tests.jobrunner.conftest import SAVE_TIMEOUT
from tests.waiting import eventually


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def sample(text: str, name: str, **labels: str) -> float:
    """The value of one series in Prometheus text, 0 when absent (labels in any order)."""
    total = 0.0
    for line in text.splitlines():
        match = re.match(rf"{re.escape(name)}(?:\{{(.*)\}})? ([0-9.e+-]+)$", line)
        if not match:
            continue
        found = dict(re.findall(r'(\w+)="([^"]*)"', match.group(1) or ""))
        if all(found.get(k) == v for k, v in labels.items()):
            total += float(match.group(2))
    return total


async def scrape(port: int) -> str:
    async with aiohttp.ClientSession() as http, http.get(f"http://127.0.0.1:{port}/metrics") as r:
        assert r.status == 200
        return await r.text()


async def test_a_call_moves_the_call_and_memory_metrics(
    job_env: None,
    *,
    room: MockRoom,
    side: FakeCallSide,
    model_server: ModelServer,
    pool: asyncpg.Pool,
) -> None:
    port = free_port()
    caller = participant("sip_caller", SIP, {"sip.phoneNumber": "+34600111222", "sip.ruleID": "r"})
    room.join(caller)
    model_server.answer([], "A short call.")
    async with job_server(side, SAVE_TIMEOUT, metrics_port=port) as server:
        before = await scrape(port)
        await dispatch(server)
        await side.greeted()
        room.leave(caller, rtc.DisconnectReason.CLIENT_INITIATED)
        await wait_until(lambda: len(model_server.requests) == 1, within=10)
        await wait_until(lambda: bool(side.closes), within=5)
        after = await wait_for_save(port, before)

    def moved(name: str, **labels: str) -> float:
        return sample(after, name, **labels) - sample(before, name, **labels)

    assert moved("caller_memory_call_saves_total", status="saved") == 1
    assert moved("caller_memory_call_memory_ready_seconds_count") == 1
    assert moved("caller_memory_extractions_total", outcome="saved") == 1
    assert moved("caller_memory_extraction_tokens_total", kind="prompt") > 0
    assert moved("caller_memory_session_llm_tokens_total", direction="output") > 0
    assert "lk_agents_active_job_count" in after  # livekit's own metrics, same endpoint


async def wait_for_save(port: int, before: str) -> str:

    async def counted() -> str | None:
        text = await scrape(port)
        saves = "caller_memory_call_saves_total"
        return text if sample(text, saves) > sample(before, saves) else None

    found: str = await eventually(counted, "a save counted", every=0.1)
    return found
