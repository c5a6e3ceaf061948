"""Slow clients are cut off at the deadlines and connections past the cap are refused.

The app runs behind the same runner and listening site as `python -m worker.http`, with short
limits; raw sockets trickle bytes. Deadlines are checked against the configured values with
generous upper bounds (the machine may be loaded), never as speed assertions.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import asyncpg
import pytest

from callmemory import environment
from memory.config import MemoryConfig
from tests.api.conftest import KEYS, build_catalog
from worker.http.server.auth import ApiKey
from worker.http.server.serving import (
    LINGER_SECONDS,
    ServerLimits,
    make_runner,
    server_limits,
    start_site,
)
from worker.http.web import create_app


def limits_from(env: dict[str, str]) -> ServerLimits:
    return server_limits(environment.read(env))


LIMITS = ServerLimits(header_timeout_seconds=1.0, body_timeout_seconds=1.0, max_connections=4)
SLACK = 3.0  # seconds a loaded machine may add before the close is seen


@pytest.fixture
async def port(
    pool: asyncpg.Pool, api_keys: tuple[ApiKey, ...], memory_config: MemoryConfig
) -> AsyncIterator[int]:
    app = create_app(
        pool=pool,
        catalog=build_catalog(),
        api_keys=api_keys,
        memory_config=memory_config,
        limits=LIMITS,
    )
    runner = make_runner(app)
    await runner.setup()
    site = await start_site(runner, "127.0.0.1", 0)
    yield site.bound_port
    await runner.cleanup()


first_answer: list[float] = []  # seconds to the first answer byte of the last trickle


async def trickle_until_closed(
    port: int, head: bytes, drip: bytes, every: float = 0.2, give_up: float = 15.0
) -> tuple[float, bytes]:
    """Send `head`, then one byte of `drip` every `every` seconds; return (seconds, answer)."""
    started = time.monotonic()  # before the connect: the server's clock starts at its accept
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(head)
    received = b""
    first_answer.clear()

    async def drip_bytes() -> None:
        for i in range(len(drip)):
            await asyncio.sleep(every)
            writer.write(drip[i : i + 1])
            await writer.drain()

    dripping = asyncio.create_task(drip_bytes())
    try:
        async with asyncio.timeout(give_up):
            while chunk := await reader.read(4096):
                if not received:
                    first_answer.append(time.monotonic() - started)
                received += chunk
    except (ConnectionResetError, BrokenPipeError):
        pass
    finally:
        dripping.cancel()
        await asyncio.gather(dripping, return_exceptions=True)
        writer.close()
    return time.monotonic() - started, received


async def test_trickled_headers_are_cut_at_the_header_deadline(port: int) -> None:
    """A request head still incomplete at the deadline: closed, though bytes kept coming."""
    drip = b"X-Slow: " + b"a" * 200  # would take 40 s at this pace
    seconds, answer = await trickle_until_closed(port, b"GET /healthz HTTP/1.1\r\n", drip)
    assert answer == b""  # nothing was answered: no request was ever complete
    assert LIMITS.header_timeout_seconds <= seconds < LIMITS.header_timeout_seconds + SLACK


async def test_a_silent_connection_is_cut_at_the_header_deadline(port: int) -> None:
    seconds, answer = await trickle_until_closed(port, b"", b"")
    assert answer == b""
    assert LIMITS.header_timeout_seconds <= seconds < LIMITS.header_timeout_seconds + SLACK


async def test_a_trickled_body_is_408_at_the_body_deadline(port: int) -> None:
    token = KEYS["admin"][0]
    head = (
        b"POST /api/memory/customers/support/recall HTTP/1.1\r\nHost: x\r\n"
        b"Authorization: Bearer " + token.encode() + b"\r\n"
        b"Content-Type: application/json\r\nContent-Length: 400\r\n\r\n"
    )
    seconds, answer = await trickle_until_closed(port, head, b'{"userId": "' + b"u" * 380)
    assert answer.startswith(b"HTTP/1.1 408 "), answer[:100]
    assert b'"code": "request_timeout"' in answer and b'"field": "body"' in answer
    # answered at the body deadline, closed after at most the drain of unread bytes
    assert LIMITS.body_timeout_seconds <= first_answer[0] < LIMITS.body_timeout_seconds + SLACK
    assert seconds < LIMITS.body_timeout_seconds + LINGER_SECONDS + SLACK


async def test_an_unauthenticated_body_is_never_waited_for(port: int) -> None:
    head = (
        b"POST /api/memory/customers/support/recall HTTP/1.1\r\nHost: x\r\n"
        b"Content-Type: application/json\r\nContent-Length: 400\r\n\r\n"
    )
    _, answer = await trickle_until_closed(port, head, b"{" * 5)
    assert answer.startswith(b"HTTP/1.1 401 ")


async def test_connections_past_the_cap_get_503_and_a_freed_slot_serves_again(
    port: int,
) -> None:
    held = [await asyncio.open_connection("127.0.0.1", port) for _ in range(LIMITS.max_connections)]
    await asyncio.sleep(0.1)  # every held connection is accepted before the next one
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    async with asyncio.timeout(5):
        refused = await reader.read()  # answered and closed without sending anything
    writer.close()
    assert refused.startswith(b"HTTP/1.1 503 ")
    assert b"Retry-After: 1" in refused and b'"code": "server_busy"' in refused

    _, first = held.pop()
    first.close()
    await first.wait_closed()
    await asyncio.sleep(0.1)
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    async with asyncio.timeout(5):
        served = await reader.read()
    writer.close()
    assert served.startswith(b"HTTP/1.1 200 ")
    for _, w in held:
        w.close()


async def test_many_slow_clients_are_all_closed(port: int) -> None:
    """Twice the cap of trickling clients: each is refused or cut near the header deadline."""
    results = await asyncio.gather(
        *(
            trickle_until_closed(port, b"GET /healthz HTTP/1.1\r\n", b"X" * 100)
            for _ in range(2 * LIMITS.max_connections)
        )
    )
    for seconds, answer in results:
        assert answer == b"" or answer.startswith(b"HTTP/1.1 503 ")
        assert seconds < LIMITS.header_timeout_seconds + SLACK


class TestLimitsFromEnvironment:
    def test_defaults(self) -> None:
        assert limits_from({}) == ServerLimits(10.0, 15.0, 256)

    def test_values(self) -> None:
        env = {
            "WEB_HEADER_TIMEOUT_SECONDS": "2.5",
            "WEB_BODY_TIMEOUT_SECONDS": "30",
            "WEB_MAX_CONNECTIONS": "1000",
        }
        assert limits_from(env) == ServerLimits(2.5, 30.0, 1000)

    @pytest.mark.parametrize(
        ("name", "value"),
        [
            ("WEB_HEADER_TIMEOUT_SECONDS", "0"),
            ("WEB_HEADER_TIMEOUT_SECONDS", "0.09"),
            ("WEB_BODY_TIMEOUT_SECONDS", "3600.1"),
            ("WEB_BODY_TIMEOUT_SECONDS", "nan"),
            ("WEB_BODY_TIMEOUT_SECONDS", "soon"),
            ("WEB_MAX_CONNECTIONS", "0"),
            ("WEB_MAX_CONNECTIONS", "100001"),
            ("WEB_MAX_CONNECTIONS", "1.5"),
        ],
    )
    def test_bad_values_name_the_variable(self, name: str, value: str) -> None:
        with pytest.raises(ValueError, match=name):
            limits_from({name: value})

    @pytest.mark.parametrize(
        ("name", "value"),
        [
            ("WEB_HEADER_TIMEOUT_SECONDS", "0.1"),
            ("WEB_BODY_TIMEOUT_SECONDS", "3600"),
            ("WEB_MAX_CONNECTIONS", "1"),
            ("WEB_MAX_CONNECTIONS", "100000"),
        ],
    )
    def test_values_at_the_limits_are_accepted(self, name: str, value: str) -> None:
        limits_from({name: value})
