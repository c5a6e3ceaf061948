"""`examples/assistant.py` over text: the web app with `AGENTS=examples.assistant:agents`
answers `POST /v1/chat/completions` with the official `openai` client, running the same
`lookup_order` the voice agent has (`tests/jobrunner/test_starter_agent.py` runs its voice)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import asyncpg
import openai
import pytest

from callmemory.agent_import import load_agents
from chat import ChatConfig
from testkit.model_server import ModelServer
from tests.agents.conftest import ADMIN_KEY, CONVERSATION_MODEL, api_keys, memory_config
from tests.agents.test_text_tools import conversation, tool_results
from tests.web_clients import AppClients, openai_sdk
from worker.catalog import Catalog
from worker.http.web import create_app

EXAMPLE = "examples.assistant:agents"


@pytest.fixture(name="example_client")
async def _example_client(
    pool: asyncpg.Pool, model_server: ModelServer
) -> AsyncIterator[openai.AsyncOpenAI]:
    clients = AppClients()
    chat = ChatConfig(
        base_url=model_server.url, api_key="k", model=CONVERSATION_MODEL, max_tool_steps=3
    )
    app = create_app(
        pool=pool,
        catalog=Catalog(load_agents(EXAMPLE)),
        api_keys=api_keys(),
        memory_config=memory_config(model_server),
        chat=chat,
        agents_path=EXAMPLE,
    )
    client = await clients.serve(app)
    async with openai_sdk(client, ADMIN_KEY) as sdk:
        yield sdk
    await clients.aclose()


async def test_the_example_answers_text_with_its_own_tool(
    example_client: openai.AsyncOpenAI, model_server: ModelServer
) -> None:
    model_server.call_tool("lookup_order", {"order_id": "a-100"})
    model_server.answer_text("It shipped on Monday and arrives Thursday.")
    reply = await example_client.chat.completions.create(
        model="assistant",
        messages=[{"role": "user", "content": "Where is my order A-100?"}],
        extra_headers={"x-stackbone-identities": '{"phoneNumber": "+34600999888"}'},
    )
    assert reply.choices[0].message.content == "It shipped on Monday and arrives Thursday."
    first, last = conversation(model_server)
    assert first["messages"][0]["content"].startswith("You are a helpful voice AI assistant.")
    offered = sorted(t["function"]["name"] for t in first["tools"])
    assert offered == ["lookup_order", "memory_read", "memory_save"]  # PHONE_CALLERS: both
    assert tool_results(last) == ["shipped on Monday, arriving Thursday"]
