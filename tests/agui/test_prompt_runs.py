"""Text turns run the agent's published prompt, and a run whose `forwardedProps.prompt` is
"draft" (the console's Playground) runs the saved draft before it is published; only a key
with `config:write` tries drafts, and the field's other values are refused by name."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from callmemory.agent_import import load_agents
from chat import ChatConfig
from memory.config import MemoryConfig
from memory.store._prompts import publish_prompt, save_prompt_draft
from testkit.model_server import ModelServer
from tests.agui.conftest import CHAT_KEY, CONVERSATION_MODEL, KEYS, headers, parse_events, run_body
from tests.agui.outside import AGENT, AGENTS
from tests.web_clients import AppClients, Client
from worker.catalog import Catalog
from worker.http.server.auth import parse_api_keys
from worker.http.web import create_app

CONSOLE_KEY = "console-secret-0123456789abcdefgh"
CODE = "You help the shop's customers with their orders."
PUBLISHED = "You are the shop's desk. Published text."
DRAFT = "You are the shop's desk. Draft text, not published."


@pytest.fixture(name="app")
async def _app(
    outside: Path, pool: asyncpg.Pool, memory_config: MemoryConfig, model_server: ModelServer
) -> AsyncIterator[Client]:
    chat = ChatConfig(
        base_url=model_server.url, api_key="k", model=CONVERSATION_MODEL, timeout_seconds=5
    )
    console = {"name": "console", "key": CONSOLE_KEY, "scopes": ["chat", "config:write"]}
    app = create_app(
        pool=pool,
        catalog=Catalog(load_agents(AGENTS)),
        api_keys=parse_api_keys(json.dumps([*KEYS, console])),
        memory_config=memory_config,
        chat=chat,
        agents_path=AGENTS,
    )
    clients = AppClients()
    yield await clients.serve(app)
    await clients.aclose()


async def system_of_run(
    app: Client, model_server: ModelServer, thread: str, key: str, **props: Any
) -> str:
    """One run on a new thread: the system text the model was sent."""
    model_server.answer_text("Hello.")
    body = run_body(thread, forwardedProps={"customerId": "crm/42", **props})
    async with app.post(f"/agui/{AGENT}", json=body, headers=headers(key)) as answer:
        assert answer.status == 200, await answer.text()
        await answer.read()
    [system] = [m for m in model_server.requests[-1]["messages"] if m["role"] == "system"]
    text: str = system["content"]
    return text


async def test_turns_run_the_published_prompt_and_a_draft_only_when_asked(
    app: Client, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    assert CODE in await system_of_run(app, model_server, "t-code", CHAT_KEY)
    await save_prompt_draft(pool, AGENT, PUBLISHED, "console")
    await publish_prompt(pool, AGENT, "console")
    await save_prompt_draft(pool, AGENT, DRAFT, "console")

    published = await system_of_run(app, model_server, "t-published", CHAT_KEY)
    assert PUBLISHED in published and CODE not in published and DRAFT not in published
    tried = await system_of_run(app, model_server, "t-draft", CONSOLE_KEY, prompt="draft")
    assert DRAFT in tried and PUBLISHED not in tried
    again = await system_of_run(app, model_server, "t-again", CONSOLE_KEY, prompt="published")
    assert PUBLISHED in again

    await save_prompt_draft(pool, AGENT, "   ", "console")  # blank: the code's, as published
    assert CODE in await system_of_run(app, model_server, "t-blank", CONSOLE_KEY, prompt="draft")


@pytest.mark.parametrize(
    ("key", "value", "status"), [(CHAT_KEY, "draft", 403), (CONSOLE_KEY, "latest", 400)]
)
async def test_a_draft_run_refused(
    app: Client, model_server: ModelServer, key: str, value: str, status: int
) -> None:
    body = run_body("t-refused", forwardedProps={"prompt": value})
    async with app.post(f"/agui/{AGENT}", json=body, headers=headers(key)) as answer:
        assert answer.status == status
        error = (await answer.json())["error"]
    assert "forwardedProps.prompt" in error["message"]
    assert model_server.requests == []  # nothing ran


async def test_a_parked_draft_turn_continues_with_the_draft(
    app: Client, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    """The draft is in the turn's snapshot: the run that resumes it (any key that decides,
    no `prompt` asked) continues with the draft, not the published text."""
    await save_prompt_draft(pool, AGENT, PUBLISHED, "console")
    await publish_prompt(pool, AGENT, "console")
    await save_prompt_draft(pool, AGENT, DRAFT, "console")
    model_server.call_tool("issue_refund", {"order_id": "A-1", "amount": 10})
    body = run_body("t-held", forwardedProps={"customerId": "crm/42", "prompt": "draft"})
    async with app.post(f"/agui/{AGENT}", json=body, headers=headers(CONSOLE_KEY)) as answer:
        events = parse_events(await answer.text())
    outcome = events[-1].outcome  # type: ignore[attr-defined]
    [interrupt] = outcome.interrupts
    model_server.answer_text("Refunded.")
    entry = {"interruptId": interrupt.id, "status": "resolved", "payload": {"approved": True}}
    resumed = run_body("t-held", runId="run-2", resume=[entry])
    async with app.post(f"/agui/{AGENT}", json=resumed, headers=headers(CHAT_KEY)) as answer:
        assert answer.status == 200, await answer.text()
        await answer.read()
    [system] = [m for m in model_server.requests[-1]["messages"] if m["role"] == "system"]
    assert DRAFT in system["content"] and PUBLISHED not in system["content"]
