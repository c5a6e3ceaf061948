"""The chat examples of the README and docs/text.md, sent as written to the agents this
repository ships: the customer each names reaches the agent's memory tools (no
`identity_missing`). The curl examples are parsed (headers and body); the Python examples of
docs/text.md run as written, with the official `openai` and `anthropic` clients, against the
served app."""

from __future__ import annotations

import asyncio
import itertools
import json
import re
import shlex
from collections.abc import AsyncIterator
from pathlib import Path

import asyncpg
import pytest

from chat import ChatConfig
from memory.config import MemoryConfig
from testkit.model_server import ModelServer
from tests.chat.conftest import CHAT_KEY, KEYS
from tests.web_clients import AppClients, Client
from worker.catalog import Catalog, agents
from worker.http.server.auth import parse_api_keys
from worker.http.web import create_app

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
TEXT = ROOT / "docs" / "text.md"
MEMORY_TOOLS = ["memory_read", "memory_save"]


def _blocks(page: Path, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", page.read_text("utf-8"), re.S)


def _curl(block: str) -> tuple[str, dict[str, str], dict[str, object]]:
    """The path, headers and body of one `curl` example."""
    words = shlex.split(block.replace("\\\n", " ").replace("$CHAT_KEY", CHAT_KEY))
    headers = dict(w.split(": ", 1) for prev, w in itertools.pairwise(words) if prev == "-H")
    url = next(w for w in words if "localhost:8080" in w)
    body = json.loads(words[words.index("-d") + 1])
    return url.split("localhost:8080", 1)[1], headers, body


CURLS = [
    (page, block)
    for page in (README, TEXT)
    for block in _blocks(page, "sh")
    if "/v1/chat/completions" in block or "/v1/messages" in block
]


@pytest.fixture(name="served")
async def _served(
    pool: asyncpg.Pool, memory_config: MemoryConfig, model_server: ModelServer
) -> AsyncIterator[Client]:
    chat = ChatConfig(base_url=model_server.url, api_key="k", model="m", timeout_seconds=5)
    app = create_app(
        pool=pool,
        catalog=Catalog(agents),
        api_keys=parse_api_keys(json.dumps(KEYS)),
        memory_config=memory_config,
        chat=chat,
    )
    clients = AppClients()
    try:
        yield await clients.serve(app)
    finally:
        await clients.aclose()


def _tools(request: dict[str, object]) -> list[str]:
    tools = request.get("tools", [])
    assert isinstance(tools, list)
    return [t["function"]["name"] for t in tools]


def test_both_pages_show_a_curl_example_of_each_wire() -> None:
    paths = [(page.name, _curl(block)[0]) for page, block in CURLS]
    assert ("README.md", "/v1/chat/completions") in paths
    assert {p for n, p in paths if n == "text.md"} == {"/v1/chat/completions", "/v1/messages"}


@pytest.mark.parametrize(
    ("page", "block"), CURLS, ids=[f"{p.name}:{_curl(b)[0]}" for p, b in CURLS]
)
async def test_each_curl_example_gets_memory_as_written(
    served: Client, model_server: ModelServer, page: Path, block: str
) -> None:
    path, headers, body = _curl(block)
    model_server.answer_text("Hello.")
    response = await served.post(path, json=body, headers=headers)
    assert response.status == 200, await response.text()
    assert _tools(model_server.requests[-1]) == MEMORY_TOOLS


async def test_the_python_examples_of_docs_text_get_memory_as_written(
    served: Client, model_server: ModelServer
) -> None:
    section = TEXT.read_text("utf-8").split("## Examples\n", 1)[1].split("\n## ", 1)[0]
    code = "\n".join(re.findall(r"```python\n(.*?)```", section, re.S))
    root = str(served.make_url("")).rstrip("/")
    code = code.replace("http://localhost:8080", root).replace(
        '"<a key with the chat scope>"', repr(CHAT_KEY)
    )
    calls = code.count(".create(") + code.count(".stream(")
    assert calls == 4  # openai plain and streamed, anthropic plain and streamed
    for i in range(calls):
        model_server.answer_text(f"Answer {i}.")
    # the official clients are synchronous here, as in the docs: they run beside the app's loop
    await asyncio.to_thread(exec, compile(code, str(TEXT), "exec"), {})
    requests = model_server.requests[-calls:]
    assert len(model_server.requests) == calls
    assert [_tools(r) for r in requests] == [MEMORY_TOOLS] * calls
