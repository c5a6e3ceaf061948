"""Web logs: one access line per request without headers or URLs' contents, in both formats."""

from __future__ import annotations

import json
import logging

import asyncpg
import pytest
from aiohttp.test_utils import TestClient, TestServer

from callmemory import environment
from infra.logs import LogFormat, record_formatter
from memory.config import MemoryConfig
from tests.api.conftest import auth, build_catalog
from worker.http.server.access_log import AccessLogger
from worker.http.server.auth import ApiKey
from worker.http.web import create_app


def log_format(env: dict[str, str]) -> LogFormat:
    return environment.read(env).log_format


SECRET_HEADER = "Bearer-ish header value 7f3a"
SECRET_USER = "+34699000111"


async def test_one_access_line_per_request_without_headers(
    pool: asyncpg.Pool,
    api_keys: tuple[ApiKey, ...],
    memory_config: MemoryConfig,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO)
    app = create_app(
        pool=pool, catalog=build_catalog(), api_keys=api_keys, memory_config=memory_config
    )
    server = TestServer(app)
    await server.start_server(access_log_class=AccessLogger)
    async with TestClient(server) as client:
        response = await client.post(
            "/api/memory/customers/support/recall?x=" + SECRET_USER,
            json={"userId": SECRET_USER},
            headers={**auth(), "X-Secret": SECRET_HEADER},
        )
        assert response.status == 200
    lines = [r for r in caplog.records if r.getMessage() == "http.access"]
    assert len(lines) == 1
    fields = vars(lines[0])
    assert fields["route"] == "/api/memory/customers/{agentId}/recall"
    assert (fields["method"], fields["status"]) == ("POST", 200)
    assert fields["duration_ms"] >= 0
    for fmt in ("console", "json"):
        rendered = record_formatter(fmt).format(lines[0])
        assert SECRET_HEADER not in rendered and SECRET_USER not in rendered
        assert "Authorization" not in rendered and "X-Secret" not in rendered
    assert json.loads(record_formatter("json").format(lines[0]))["event"] == "http.access"


@pytest.mark.parametrize(
    ("value", "fmt"),
    [("json", "json"), (" JSON ", "json"), ("console", "console"), ("", "console")],
)
def test_log_format_from_the_environment(value: str, fmt: str) -> None:
    assert log_format({"LOG_FORMAT": value}) == fmt
    assert log_format({}) == "console"
