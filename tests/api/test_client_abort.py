"""A client that leaves before its body arrived is a client abort, not a server failure: the
access line and the request metrics say 499 (nginx's "client closed request"), the event is
`web.client_gone` at info level, and nothing says 500 or `web.unhandled_error`."""

from __future__ import annotations

import asyncio
import logging

import pytest
from prometheus_client import REGISTRY

from testkit.fake_devices import wait_until
from tests.api.conftest import auth

CASES = [
    ("PUT", "/api/memory/settings/support", "application/json", "/api/memory/settings/{agentId}"),
    (
        "POST",
        "/api/documents/collections/help/documents?source=a",
        "text/plain",
        "/api/documents/collections/{namespace}/documents",
    ),
]


def requests_counted(route: str, status: str) -> float:
    labels = {"method": "PUT" if "settings" in route else "POST", "route": route, "status": status}
    return REGISTRY.get_sample_value("caller_memory_http_requests_total", labels) or 0.0


@pytest.mark.parametrize("case", CASES, ids=[case[1] for case in CASES])
async def test_a_client_gone_before_its_body_is_499_at_info(
    served_port: int, caplog: pytest.LogCaptureFixture, case: tuple[str, str, str, str]
) -> None:
    method, path, content_type, route = case
    caplog.set_level(logging.INFO)
    before_499, before_500 = requests_counted(route, "499"), requests_counted(route, "500")
    _, writer = await asyncio.open_connection("127.0.0.1", served_port)
    writer.write(
        f"{method} {path} HTTP/1.1\r\nHost: x\r\nAuthorization: {auth()['Authorization']}\r\n"
        f'Content-Type: {content_type}\r\nContent-Length: 1000\r\n\r\n{{"read": '.encode()
    )
    await writer.drain()
    writer.close()  # gone with 990 bytes of the body still owed
    await writer.wait_closed()

    def logged() -> bool:
        return any(r.getMessage() == "http.access" for r in caplog.records)

    await wait_until(logged, within=10.0)
    [access] = [r for r in caplog.records if r.getMessage() == "http.access"]
    assert (vars(access)["route"], vars(access)["status"]) == (route, 499)
    [gone] = [r for r in caplog.records if r.getMessage() == "web.client_gone"]
    assert gone.levelno == logging.INFO
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], [
        r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING
    ]
    assert requests_counted(route, "499") == before_499 + 1
    assert requests_counted(route, "500") == before_500
