"""A malformed request head is refused without its contents reaching the logs.

aiohttp's parser quotes the offending raw header line in its exception; the web process logs one
line with the kind of error instead, no traceback, whatever the level. Raw sockets against the
real runner and listening site, logs captured from every logger.
"""

from __future__ import annotations

import logging

import pytest
from aiohttp.http_exceptions import BadHttpMessage, InvalidHeader

from infra.logs import record_formatter
from tests.api.conftest import raw_exchange
from worker.http.server.server_log import server_event

SECRET = "key-1d0e2b7c9a"


def _rendered(records: list[logging.LogRecord]) -> str:
    return "\n".join(
        record_formatter(fmt).format(r) for r in records for fmt in ("console", "json")
    )


@pytest.mark.parametrize(
    "head",
    [
        b"GET /healthz HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + SECRET.encode() + b"\x7f",
        b"GET /healthz HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + SECRET.encode() + b"\x00",
        b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Key " + SECRET.encode(),
        b"GET /" + SECRET.encode() + b" HTTP/1.1\x01\r\nHost: x",
    ],
    ids=["del", "nul", "no-colon", "request-line"],
)
async def test_a_malformed_head_is_logged_as_one_line_without_its_contents(
    served_port: int, caplog: pytest.LogCaptureFixture, head: bytes
) -> None:
    caplog.set_level(logging.DEBUG)
    answer = await raw_exchange(served_port, head + b"\r\n\r\n")
    assert answer.startswith(b"HTTP/1.0 400 ") or answer.startswith(b"HTTP/1.1 400 "), answer
    assert SECRET not in _rendered(caplog.records)
    assert all(r.exc_info is None and r.stack_info is None for r in caplog.records)
    refused = [r for r in caplog.records if r.getMessage() == "http.malformed_request"]
    assert len(refused) == 1
    assert refused[0].levelno == logging.WARNING
    assert vars(refused[0])["error_type"] in {"BadHttpMessage", "InvalidHeader", "BadStatusLine"}
    assert vars(refused[0])["status"] == 400
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    access = [r for r in caplog.records if r.getMessage() == "http.access"]
    assert [(vars(r)["route"], vars(r)["status"]) for r in access] == [("unmatched", 400)]


async def test_the_connection_after_a_malformed_head_serves_the_next_client(
    served_port: int, caplog: pytest.LogCaptureFixture
) -> None:
    await raw_exchange(served_port, b"GET / HTTP/1.1\r\nX-A: b\x7f\r\n\r\n")
    answer = await raw_exchange(
        served_port, b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    )
    assert answer.startswith(b"HTTP/1.1 200 "), answer[:80]


def test_the_logged_fields_never_hold_the_error_message() -> None:
    bad = BadHttpMessage(f"Invalid header value char: Bearer {SECRET}")
    assert server_event(bad) == {
        "event": "http.malformed_request",
        "error_type": "BadHttpMessage",
        "status": 400,
    }
    assert server_event(InvalidHeader(SECRET))["error_type"] == "InvalidHeader"
    assert server_event(RuntimeError(SECRET)) == {
        "event": "http.server_failed",
        "error_type": "RuntimeError",
    }
    assert server_event(None) == {"event": "http.server_failed", "error_type": None}
