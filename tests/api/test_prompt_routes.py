"""An agent's prompt over HTTP: the code's instructions by default, a draft that does not run,
publication (who published, in the activity log without the text), reset, the length limit at
and past it, and the keys that may read or write it."""

from __future__ import annotations

from typing import Any

import asyncpg
import pytest

from memory.settings import CodeDefaults
from memory.settings._prompt import MAX_PROMPT_CHARS
from memory.store import load_call_settings
from tests.api.conftest import auth
from tests.web_clients import Client
from worker.catalog import prompt

PATH = "/api/memory/agents/support/prompt"
DRAFT = "You are the support line of Maria's bakery. Secret word: ultraviolet-7731."
CODE = CodeDefaults(read=True, identity_key="phoneNumber")


async def call(
    client: Client, method: str, path: str = "", body: object = None, key: str = "admin"
) -> tuple[int, Any]:
    response = await client.request(method, PATH + path, json=body, headers=auth(key))
    return response.status, await response.json()


async def running(pool: asyncpg.Pool) -> str | None:
    """The prompt the next call or turn of `support` reads with its settings."""
    return (await load_call_settings(pool, "support", CODE)).prompt


async def test_the_code_instructions_run_until_a_draft_is_published(
    client: Client, pool: asyncpg.Pool
) -> None:
    status, body = await call(client, "GET", key="config-reader")
    assert status == 200
    assert (body["runs"], body["code"], body["draft"], body["published"]) == (
        "code",
        prompt("support"),
        None,
        None,
    )
    status, body = await call(client, "PUT", "/draft", {"text": DRAFT}, key="config-writer")
    assert status == 200 and body["draft"] == DRAFT and body["draftSavedAt"]
    assert body["runs"] == "code" and await running(pool) is None  # a draft does not run

    status, body = await call(client, "POST", "/publish", key="config-writer")
    assert status == 200 and body["published"] == DRAFT and body["runs"] == "published"
    assert body["publishedBy"] == "config-writer" and body["publishedAt"]
    assert await running(pool) == DRAFT

    status, body = await call(client, "DELETE", key="config-writer")
    assert status == 200 and body["runs"] == "code" and body["draft"] is None
    assert await running(pool) is None


async def test_a_blank_draft_publishes_the_code_instructions(
    client: Client, pool: asyncpg.Pool
) -> None:
    await call(client, "PUT", "/draft", {"text": DRAFT})
    await call(client, "POST", "/publish")
    await call(client, "PUT", "/draft", {"text": "  \n"})
    status, body = await call(client, "POST", "/publish")
    assert status == 200 and body["published"] is None and body["runs"] == "code"
    assert await running(pool) is None


async def test_the_activity_log_says_who_published_never_the_text(
    client: Client, pool: asyncpg.Pool
) -> None:
    await call(client, "PUT", "/draft", {"text": DRAFT}, key="config-writer")
    await call(client, "POST", "/publish", key="admin")
    await call(client, "DELETE", key="config-writer")
    response = await client.get(
        "/api/memory/activity", params={"agentId": "support"}, headers=auth()
    )
    found = (await response.json())["entries"]
    assert [(e["actor"], e["action"], e["fields"]) for e in found][:3] == [
        ("config-writer", "reset", ["promptDraft", "promptPublished"]),
        ("admin", "publish", ["promptPublished"]),
        ("config-writer", "save", ["promptDraft"]),
    ]
    rows = await pool.fetch("select * from stackbone_platform.memory_settings_activity")
    assert "ultraviolet" not in repr([dict(r) for r in rows])


@pytest.mark.parametrize("past", [False, True])
async def test_the_prompt_length_limit(client: Client, pool: asyncpg.Pool, past: bool) -> None:
    text = "x" * (MAX_PROMPT_CHARS + (1 if past else 0))
    status, body = await call(client, "PUT", "/draft", {"text": text})
    if past:
        assert status == 400 and body["error"]["field"] == "text"
        assert "at most 100,000 characters" in body["error"]["message"]
        assert (await call(client, "GET"))[1]["draft"] is None  # nothing stored
        return
    assert status == 200 and len(body["draft"]) == MAX_PROMPT_CHARS
    status, body = await call(client, "POST", "/publish")
    assert status == 200 and await running(pool) == text


@pytest.mark.parametrize(
    ("body", "field"),
    [({"text": 5}, "text"), ({"text": "a\x00b"}, "text"), ({}, "text"), ([], "body")],
)
async def test_a_bad_draft_names_its_field(client: Client, body: object, field: str) -> None:
    status, answer = await call(client, "PUT", "/draft", body)
    assert status == 400 and answer["error"]["field"] == field


async def test_who_may_read_and_write_it(client: Client) -> None:
    assert (await call(client, "PUT", "/draft", {"text": "x"}, key="config-reader"))[0] == 403
    assert (await call(client, "POST", "/publish", key="config-reader"))[0] == 403
    assert (await call(client, "GET", key="memory-reader"))[0] == 403
    assert (await call(client, "GET", key="sales-only"))[0] == 404  # another agent's
    response = await client.get("/api/memory/agents/nobody-here/prompt", headers=auth())
    assert response.status == 404
