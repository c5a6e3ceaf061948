"""The 1 MiB body limit: a declared `Content-Length` past it is answered 413 at once, before any
of the body is read; 1 MiB exactly is accepted. Raw sockets against the real runner and site."""

from __future__ import annotations

import json

from tests.api.conftest import KEYS, raw_exchange
from worker.http.server.serving import MAX_BODY_BYTES

SHORT = 5.0  # seconds to give up: the body deadline (15 s by default) is far past it


def _head(length: int, token: str | None = KEYS["admin"][0]) -> bytes:
    key = b"" if token is None else b"Authorization: Bearer " + token.encode() + b"\r\n"
    return (
        b"POST /api/memory/customers/support/recall HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
        + key
        + b"Content-Type: application/json\r\nContent-Length: "
        + str(length).encode()
        + b"\r\n\r\n"
    )


def _body(size: int) -> bytes:
    """A valid recall body padded with JSON whitespace to exactly `size` bytes."""
    core = b'{"userId": "u1"}'
    return core[:-1] + b" " * (size - len(core)) + b"}"


def _error(answer: bytes) -> dict[str, object]:
    error = json.loads(answer.split(b"\r\n\r\n", 1)[1])["error"]
    assert isinstance(error, dict)
    return error


async def test_a_body_of_exactly_one_mib_is_read(served_port: int) -> None:
    answer = await raw_exchange(served_port, _head(MAX_BODY_BYTES) + _body(MAX_BODY_BYTES), SHORT)
    assert answer.startswith(b"HTTP/1.1 200 "), answer[:200]


async def test_one_byte_past_the_limit_is_413(served_port: int) -> None:
    size = MAX_BODY_BYTES + 1
    answer = await raw_exchange(served_port, _head(size) + _body(size), SHORT)
    assert answer.startswith(b"HTTP/1.1 413 "), answer[:200]
    assert _error(answer) == {
        "code": "payload_too_large",
        "message": "body: at most 1048576 bytes, Content-Length says 1048577",
        "field": "body",
    }


async def test_a_declaration_past_the_limit_is_413_before_any_body(served_port: int) -> None:
    for size in (MAX_BODY_BYTES + 1, 10 * 1000**3):
        answer = await raw_exchange(served_port, _head(size), SHORT)  # no body ever sent
        assert answer.startswith(b"HTTP/1.1 413 "), (size, answer[:200])
        assert b"Connection: close" in answer
        assert _error(answer)["code"] == "payload_too_large"


async def test_an_unauthenticated_declaration_is_refused_without_its_body(
    served_port: int,
) -> None:
    answer = await raw_exchange(served_port, _head(10 * 1000**3, token=None), SHORT)
    assert answer.startswith(b"HTTP/1.1 401 "), answer[:200]
