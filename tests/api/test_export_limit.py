"""At most `WEB_MAX_EXPORTS` exports stream at once in a web process: one more is refused at once
with `429 export_busy`, and a slot comes back however an export ends.

An export is kept streaming by real means: the person is larger (about 16 MB of call records)
than the socket buffers between the app and a client that does not read its answer, so the export
waits for the client with its pooled connection held, as a slow client's would in production.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import aiohttp
import asyncpg
import pytest
from aiohttp import web
from jsonschema import Draft202012Validator
from structlog.testing import capture_logs

from callmemory import environment
from memory.config import ConfigError, MemoryConfig
from tests.api.conftest import auth, build_catalog
from tests.waiting import eventually
from worker.http.routes import EXPORT_SLOTS
from worker.http.server.auth import ApiKey
from worker.http.server.serving import ServerLimits, make_runner, server_limits, start_site
from worker.http.web import create_app

PATH = "/api/memory/customers/support/export"
LARGE, SMALL = "+34 611 22 33 44", "+34 699 00 00 00"
CALLS, SUMMARY_CHARS = 4_000, 4_000  # about 16 MB: well past what the socket buffers hold


@dataclass(frozen=True, slots=True)
class Served:
    """An app behind the production runner and site (a handler is never cancelled when its
    client goes: it meets the closed connection, as in production) and a client session."""

    app: web.Application
    http: aiohttp.ClientSession
    base: str

    async def post(self, user: str) -> aiohttp.ClientResponse:
        return await self.http.post(f"{self.base}{PATH}", json={"userId": user})

    async def start(self, user: str = LARGE) -> aiohttp.ClientResponse:
        """An export whose answer has started (status and headers read) and is left unread."""
        response = await self.post(user)
        assert response.status == 200, await response.text()
        return response


Serve = Callable[[int], Awaitable[Served]]


@pytest.fixture(name="serve")
async def _serve(
    pool: asyncpg.Pool, api_keys: tuple[ApiKey, ...], memory_config: MemoryConfig
) -> AsyncIterator[Serve]:
    """Apps whose process streams at most `limit` exports, with one large person in the
    database."""
    await pool.execute(
        """insert into stackbone_platform.memory_calls
            (agent_id, user_id, started_at, summary, created_at)
        select 'support', $1, now(), 'Call ' || g || ' ' || repeat('x', $3), now()
        from generate_series(1, $2) g""",
        LARGE,
        CALLS,
        SUMMARY_CHARS,
    )
    async with contextlib.AsyncExitStack() as stack:
        http = await stack.enter_async_context(aiohttp.ClientSession(headers=auth("memory-reader")))

        async def serve(limit: int) -> Served:
            app = create_app(
                pool=pool,
                catalog=build_catalog(),
                api_keys=api_keys,
                memory_config=memory_config,
                limits=ServerLimits(max_exports=limit),
            )
            runner = make_runner(app)
            await runner.setup()
            stack.push_async_callback(runner.cleanup)
            site = await start_site(runner, "127.0.0.1", 0)
            return Served(app, http, f"http://127.0.0.1:{site.bound_port}")

        yield serve


async def document(response: aiohttp.ClientResponse) -> dict[str, Any]:
    body: dict[str, Any] = json.loads(await response.read())
    return body


async def export_reads(pool: asyncpg.Pool) -> int:
    count: int = await pool.fetchval(
        "select count(*) from stackbone_platform.memory_reads where route = 'export'"
    )
    return count


async def slot_freed(app: web.Application) -> None:
    async def free() -> bool:
        return not app[EXPORT_SLOTS].full

    await eventually(free, "the export's slot given back")


async def test_exports_at_the_limit_stream_and_one_past_it_is_refused_at_once(
    serve: Serve, pool: asyncpg.Pool
) -> None:
    served = await serve(2)
    app = served.app
    first, second = await served.start(), await served.start()  # both streaming, neither read
    refused = await served.post(SMALL)
    assert refused.status == 429
    assert await refused.json() == {
        "error": {
            "code": "export_busy",
            "message": "exports are at their limit (2 streaming at once in this process);"
            " retry shortly",
            "field": None,
        }
    }
    assert refused.headers["Retry-After"] == "1" and "x-should-retry" not in refused.headers
    assert app[EXPORT_SLOTS].full and await export_reads(pool) == 0  # nothing of it written
    for response in (first, second):  # the two streaming are untouched by the refusal
        assert len((await document(response))["calls"]) == CALLS

    async def both_recorded() -> bool:  # each export's last step, just before its slot is free
        return await export_reads(pool) == 2

    await eventually(both_recorded, "the two exports' reads")  # the refused one left none
    again = await served.post(SMALL)
    assert (again.status, (await document(again))["userId"]) == (200, SMALL)


async def test_the_refusal_is_the_answer_the_openapi_document_lists(serve: Serve) -> None:
    served = await serve(1)
    streaming = await served.start()
    refused = await served.post(SMALL)
    async with served.http.get(f"{served.base}/api/openapi.json") as answer:
        document = await answer.json()
    listed = document["paths"][PATH.replace("support", "{agentId}")]["post"]["responses"]["429"]
    assert "Retry-After" in listed["headers"]
    schema = {
        **listed["content"]["application/json"]["schema"],
        "components": document["components"],
    }
    Draft202012Validator(schema).validate(await refused.json())
    streaming.close()


async def test_a_client_gone_mid_stream_gives_its_slot_back(serve: Serve) -> None:
    served = await serve(1)
    gone = await served.start()
    assert served.app[EXPORT_SLOTS].full
    with capture_logs() as logs:
        gone.close()  # the connection closes while the export waits for the client to read
        await slot_freed(served.app)
    assert [entry["event"] for entry in logs] == ["memory.customer_exported"]  # no error
    assert len((await document(await served.start()))["calls"]) == CALLS


async def test_a_database_failure_mid_stream_gives_its_slot_back(
    serve: Serve, pool: asyncpg.Pool
) -> None:
    served = await serve(1)
    cut = await served.start()

    async def exporting() -> list[asyncpg.Record]:
        return await pool.fetch(
            "select pid from pg_stat_activity where datname = current_database()"
            " and query like '%to_jsonb(t)%' and pid <> pg_backend_pid()"  # this test's only
        )

    [backend] = await eventually(exporting, "the export's backend")
    assert await pool.fetchval("select pg_terminate_backend($1)", backend["pid"])
    with pytest.raises(json.JSONDecodeError):  # the client reads a document cut short
        await document(cut)
    await slot_freed(served.app)
    assert len((await document(await served.start()))["calls"]) == CALLS


@pytest.mark.parametrize(("at_limit", "past_limit"), [("1", "0"), ("4", "5")])
def test_the_setting_at_its_limits_and_past_them(at_limit: str, past_limit: str) -> None:
    """1..4: each export holds one of the web process's 5 pooled connections, and one is always
    left for the other routes."""
    settings = environment.read({"WEB_MAX_EXPORTS": at_limit})
    assert server_limits(settings).max_exports == int(at_limit)
    with pytest.raises(ConfigError, match=r"^WEB_MAX_EXPORTS: ") as caught:
        environment.read({"WEB_MAX_EXPORTS": past_limit})
    assert len(str(caught.value).splitlines()) == 1
    assert server_limits(environment.read({})).max_exports == 2
