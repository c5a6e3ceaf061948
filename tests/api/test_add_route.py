"""Adds over HTTP: one write per Idempotency-Key, the memory:write scope, the agent's settings,
the call record's channel, and keys erased with the person and swept after 24 hours."""

from __future__ import annotations

import asyncio
from typing import Any

import asyncpg
import pytest

from testkit.model_server import ModelServer, Reply
from tests.api.conftest import CODE_INSTRUCTIONS, auth
from tests.memory.helpers import add_op
from tests.memory.test_erasure import where_found
from tests.web_clients import Client
from worker.ops_retention import RetentionConfig, retention_pass

ADD = "/api/memory/customers/support/add"
ERASE = "/api/memory/customers/support/delete-all"
USER = "+34 611 22 33 44"
KEYS = "stackbone_platform.memory_idempotency"
BODY = {"userId": USER, "content": "I moved to Madrid."}


async def post(
    client: Client, body: Any, key: str | None = None, who: str = "memory-writer"
) -> tuple[int, Any, dict[str, str]]:
    headers = auth(who) | ({} if key is None else {"Idempotency-Key": key})
    response = await client.post(ADD, json=body, headers=headers)
    return response.status, await response.json(), dict(response.headers)


def error(body: Any) -> tuple[str, str | None]:
    return body["error"]["code"], body["error"]["field"]


async def test_a_retry_with_the_key_gets_the_first_answer_without_a_model_call(
    client: Client, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    model_server.answer([add_op("Lives in Madrid.")], "Moved.")
    call = {"startedAt": "2026-11-02T10:00:00+00:00", "durationSeconds": 83, "runId": "crm-7"}
    body = {**BODY, "call": {**call, "channel": "crm"}}
    first = await post(client, body, "retry-1")
    again = await post(client, body, "retry-1")
    assert first[0] == again[0] == 200
    assert again[1] == first[1]
    assert again[2]["Idempotent-Replayed"] == "true" and "Idempotent-Replayed" not in first[2]
    assert [f["content"] for f in first[1]["facts"]] == ["Lives in Madrid."]
    assert first[1]["call"]["runId"] == "crm-7" and first[1]["revision"] == 1
    assert len(model_server.requests) == 1  # the stand-in model was asked once
    rows = await pool.fetch("select channel, run_id from stackbone_platform.memory_calls")
    assert [tuple(r) for r in rows] == [("crm", "crm-7")]


async def test_the_same_key_with_another_body_is_409_and_runs_nothing(
    client: Client, model_server: ModelServer
) -> None:
    model_server.answer([add_op("Lives in Madrid.")], "Moved.")
    assert (await post(client, BODY, "k"))[0] == 200
    status, body, headers = await post(client, {**BODY, "content": "I moved to Paris."}, "k")
    assert (status, error(body)) == (409, ("idempotency_key_reused", "Idempotency-Key"))
    assert headers.get("x-should-retry") == "false"  # the clients' retries cannot succeed
    other_person = await post(client, {**BODY, "userId": "+34600"}, "k")  # another key
    assert other_person[0] == 502  # it ran: the model had no answer left
    assert len(model_server.requests) == 2


async def test_a_key_in_use_by_a_running_request_is_409(
    client: Client, model_server: ModelServer
) -> None:
    asked, refused = asyncio.Event(), asyncio.Event()  # the model answers once the 2nd is refused
    content = '{"operations": [], "summary": "Moved."}'
    model_server.replies.append(Reply(content=content, on_request=asked.set, hold=refused))
    first = asyncio.create_task(post(client, BODY, "busy"))
    try:
        await asyncio.wait_for(asked.wait(), 10)
        status, body, headers = await post(client, BODY, "busy")
    finally:
        refused.set()
    assert (status, error(body)) == (409, ("idempotency_key_in_progress", "Idempotency-Key"))
    assert headers.get("Retry-After") == "1" and "x-should-retry" not in headers
    assert (await first)[0] == 200
    assert (await post(client, BODY, "busy"))[0] == 200  # the first answer, once it ended
    assert len(model_server.requests) == 1


async def test_a_failed_add_frees_its_key(client: Client, model_server: ModelServer) -> None:
    model_server.fail(500)
    assert (await post(client, BODY, "again"))[0] == 502
    model_server.answer([add_op("Lives in Madrid.")], "Moved.")
    assert (await post(client, BODY, "again"))[0] == 200
    assert len(model_server.requests) == 2


async def test_the_agents_settings_steer_it_and_the_channel_is_http_by_default(
    client: Client, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    model_server.answer([], "Moved.")
    assert (await post(client, BODY))[0] == 200
    prompt = str(model_server.requests[0]["messages"])
    assert CODE_INSTRUCTIONS in prompt
    channel = await pool.fetchval("select channel from stackbone_platform.memory_calls")
    assert channel == "http"


@pytest.mark.parametrize("who", ["memory-reader", "memory-eraser", "nobody"])
async def test_only_memory_write_may_add(
    client: Client, model_server: ModelServer, who: str
) -> None:
    status, body, _ = await post(client, BODY, "k", who=who)
    assert (status, body["error"]["code"]) == (403, "forbidden")
    assert model_server.requests == []


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({**BODY, "content": "  "}, "content"),
        ({**BODY, "content": []}, "content"),
        ({"userId": USER}, "content"),
        ({**BODY, "content": [{"role": "robot", "content": "x"}]}, "content[0].role"),
        ({**BODY, "userId": ""}, "user_id"),
        ({**BODY, "call": {"startedAt": "yesterday"}}, "call.startedAt"),
        ({**BODY, "call": {"durationSeconds": -1}}, "call.durationSeconds"),
        ({**BODY, "call": {"channel": "c" * 41}}, "call.channel"),
        ({**BODY, "call": {"channel": ""}}, "call.channel"),
        ({**BODY, "call": {"colour": "red"}}, "call.colour"),
    ],
)
async def test_bad_bodies_are_400_naming_the_field(
    client: Client, model_server: ModelServer, pool: asyncpg.Pool, body: Any, field: str
) -> None:
    status, answer, _ = await post(client, body, "bad-body")
    assert (status, error(answer)) == (400, ("memory_invalid_request", field))
    assert model_server.requests == []
    assert await pool.fetchval(f"select count(*) from {KEYS}") == 0  # the claim was dropped


@pytest.mark.parametrize("key", ["", "k" * 201, "clé"])
async def test_a_bad_key_is_400_naming_the_header(
    client: Client, model_server: ModelServer, key: str
) -> None:
    headers = auth("memory-writer") | {"Idempotency-Key": key}
    response = await client.post(ADD, json=BODY, headers=headers)
    answer = await response.json()
    assert (response.status, error(answer)) == (
        400,
        ("memory_invalid_request", "Idempotency-Key"),
    )
    assert model_server.requests == []


async def test_keys_are_erased_with_the_person(
    client: Client, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    model_server.answer([add_op("Owns a zanzibarquokka.")], "A narwhalsummary call.")
    model_server.answer([add_op("Owns a keptaxolotl.")], "Kept.")
    assert (await post(client, BODY, "erase-1"))[0] == 200
    assert (await post(client, {**BODY, "userId": "+34600"}, "erase-1"))[0] == 200
    assert KEYS in await where_found(pool, ["zanzibarquokka"])  # the kept answer
    response = await client.post(ERASE, json={"userId": USER}, headers=auth("memory-eraser"))
    assert response.status == 200
    assert await where_found(pool, ["zanzibarquokka", "narwhalsummary"]) == {}
    assert await pool.fetchval(f"select user_id from {KEYS}") == "+34600"
    model_server.answer([], "Again.")
    assert (await post(client, BODY, "erase-1"))[0] == 200  # a new key now: it ran
    assert len(model_server.requests) == 3


async def test_a_key_older_than_a_day_is_swept_and_claimed_anew(
    client: Client, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    model_server.answer([], "One.")
    model_server.answer([], "Two.")
    model_server.answer([], "Three.")
    assert (await post(client, BODY, "old"))[0] == 200
    assert (await post(client, BODY, "young"))[0] == 200
    await pool.execute(
        f"update {KEYS} set created_at = now() - interval '24 hours 1 minute' where key = 'old'"
    )
    assert (await post(client, BODY, "old"))[0] == 200  # past its life: run again
    assert len(model_server.requests) == 3
    await pool.execute(f"update {KEYS} set created_at = now() - interval '25 hours'")
    await pool.execute(f"update {KEYS} set created_at = now() where key = 'young'")
    assert await retention_pass(pool, RetentionConfig(days=30)) == 0  # no ops event is old
    assert [r["key"] for r in await pool.fetch(f"select key from {KEYS}")] == ["young"]


async def test_the_same_body_written_otherwise_is_the_same_body(
    client: Client, model_server: ModelServer
) -> None:
    """Key order and an explicit null for a left-out field do not make another body."""
    model_server.answer([], "Moved.")
    first = await post(client, BODY, "same")
    again = await post(client, {"call": None, "content": BODY["content"], "userId": USER}, "same")
    assert first[0] == again[0] == 200 and again[1] == first[1]
    assert len(model_server.requests) == 1
