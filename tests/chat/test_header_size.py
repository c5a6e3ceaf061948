"""The identities header at its size limit, through the web process's own runner and listening
site (not the test server): the largest valid header is served, one byte past it is a 400
naming the rule, and aiohttp's default 8 KiB field limit no longer stands in the way."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import aiohttp
import asyncpg
import pytest

from chat import ChatConfig
from chat.identities import MAX_ENTRIES, MAX_HEADER_BYTES, MAX_NAME_CHARS, MAX_VALUE_CHARS
from memory.config import MemoryConfig
from testkit.model_server import ModelServer
from tests.chat.conftest import CONVERSATION_MODEL, KEYS, chat_catalog, chat_headers
from worker.http.server.auth import parse_api_keys
from worker.http.server.serving import MAX_FIELD_BYTES, make_runner, start_site
from worker.http.web import create_app

HEADER = "x-stackbone-identities"
BODY = {"model": "both", "messages": [{"role": "user", "content": "Hi"}]}


def largest() -> str:
    """32 names of 100 and values of 500 characters beyond the BMP: each one 12 escaped bytes."""
    names = [chr(0x1F600 + i) * MAX_NAME_CHARS for i in range(MAX_ENTRIES)]
    return json.dumps({n: chr(0x1F300) * MAX_VALUE_CHARS for n in names})


@pytest.fixture
async def base_url(
    pool: asyncpg.Pool, memory_config: MemoryConfig, model_server: ModelServer
) -> AsyncIterator[str]:
    chat = ChatConfig(base_url=model_server.url, api_key="k", model=CONVERSATION_MODEL)
    app = create_app(
        pool=pool,
        catalog=chat_catalog(),
        api_keys=parse_api_keys(json.dumps(KEYS)),
        memory_config=memory_config,
        chat=chat,
    )
    runner = make_runner(app)
    await runner.setup()
    site = await start_site(runner, "127.0.0.1", 0)
    yield f"http://127.0.0.1:{site.bound_port}"
    await runner.cleanup()


async def post(base_url: str, identities: str) -> tuple[int, dict[str, object]]:
    async with aiohttp.ClientSession() as http:
        headers = chat_headers(**{HEADER: identities})
        async with http.post(f"{base_url}/v1/chat/completions", json=BODY, headers=headers) as r:
            text = await r.text()
            try:
                return r.status, json.loads(text)
            except ValueError:
                return r.status, {"raw": text}


def test_the_largest_valid_header_is_the_computed_limit() -> None:
    assert len(largest()) == MAX_HEADER_BYTES == 230_656
    assert MAX_HEADER_BYTES > 8190  # aiohttp's default field limit would refuse it


async def test_the_largest_valid_header_is_served(base_url: str, model_server: ModelServer) -> None:
    model_server.answer_text("Hello.")
    status, body = await post(base_url, largest())
    assert status == 200, body
    assert "tools" not in model_server.requests[-1]  # no customerId among the names: no tools


@pytest.mark.parametrize("extra", [1, MAX_FIELD_BYTES - MAX_HEADER_BYTES - len(HEADER) - 2])
async def test_past_the_limit_is_a_400_naming_the_rule(base_url: str, extra: int) -> None:
    header = largest()
    header = header[:1] + " " * extra + header[1:]  # still valid JSON, `extra` bytes longer
    status, body = await post(base_url, header)
    assert status == 400, body
    error = body["error"]
    assert isinstance(error, dict)
    assert error["field"] == HEADER
    assert error["message"] == f"{HEADER}: must be at most {MAX_HEADER_BYTES} bytes"


async def test_far_past_it_aiohttp_still_refuses(base_url: str) -> None:
    status, body = await post(base_url, "x" * (MAX_FIELD_BYTES + 1))
    assert status == 400 and "error" not in body  # aiohttp's own answer, before any route
