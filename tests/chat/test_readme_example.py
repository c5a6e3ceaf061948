"""The README's chat example, sent as written to the agents this repository ships: the customer
it names reaches the agent's memory tools (no `identity_missing`)."""

from __future__ import annotations

import itertools
import json
import re
import shlex
from pathlib import Path

import asyncpg

from chat import ChatConfig
from memory.config import MemoryConfig
from testkit.model_server import ModelServer
from tests.chat.conftest import CHAT_KEY, KEYS
from tests.web_clients import AppClients
from worker.catalog import default_catalog
from worker.http.auth import parse_api_keys
from worker.http.web import create_app

README = Path(__file__).resolve().parents[2] / "README.md"


def _curl_example() -> tuple[dict[str, str], dict[str, object]]:
    """The headers and body of the README's `curl .../v1/chat/completions` example."""
    blocks = re.findall(r"```sh\n(.*?)```", README.read_text("utf-8"), re.S)
    block = next(b for b in blocks if "/v1/chat/completions" in b)
    words = shlex.split(block.replace("\\\n", " ").replace("$CHAT_KEY", CHAT_KEY))
    headers = dict(w.split(": ", 1) for prev, w in itertools.pairwise(words) if prev == "-H")
    body = json.loads(words[words.index("-d") + 1])
    return headers, body


async def test_the_readme_chat_example_gets_memory_as_written(
    pool: asyncpg.Pool, memory_config: MemoryConfig, model_server: ModelServer
) -> None:
    headers, body = _curl_example()
    chat = ChatConfig(base_url=model_server.url, api_key="k", model="m", timeout_seconds=5)
    app = create_app(
        pool=pool,
        catalog=default_catalog(),
        api_keys=parse_api_keys(json.dumps(KEYS)),
        memory_config=memory_config,
        chat=chat,
    )
    clients = AppClients()
    try:
        client = await clients.serve(app)
        model_server.answer_text("Hello.")
        response = await client.post("/v1/chat/completions", json=body, headers=headers)
        assert response.status == 200, await response.text()
    finally:
        await clients.aclose()
    tools = [t["function"]["name"] for t in model_server.requests[-1].get("tools", [])]
    assert tools == ["memory_read", "memory_save"]
