"""Property: whatever the database and the provider do, add / recall / delete_all answer an
envelope (data or an error with a contract code, never both, never an exception).

Each example gets its own database cloned from the migrated template, a lazily connecting
pool, and one database fault, all real: backends terminated before or during the operation,
the database dropped before or during it, the schema renamed, a constraint that refuses the
write, a 1 ms `statement_timeout`, connections to the database refused. The provider is the
local model server answering garbage, the wrong content type, HTTP errors, late, or hanging up.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import asyncpg
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from memory.api import Memory
from memory.config import MemoryConfig
from memory.contract._envelope import Result
from memory.contract._errors import ERROR_CODES, MemoryFailure
from memory.extraction._provider import ExtractionModel
from memory.search._embeddings import EmbeddingModel
from memory.search._search import Search
from memory.search._store import SearchStore
from memory.settings import CodeDefaults
from memory.store._extraction_settings import load_extraction
from memory.store._facts import MemoryStore
from memory.store._settings import load_call_settings
from testkit.databases import OWN_SESSIONS, drop_database, with_database
from testkit.model_server import ModelServer, Reply
from tests.memory.helpers import add_op, update_op

TIMEOUT = 0.3  # the extraction timeout in these examples: a late reply is a timeout


@dataclass(frozen=True)
class Fault:
    kind: str
    delay: float = 0.0


def _answer(ops: list[dict[str, Any]], summary: str = "A call.") -> Reply:
    return Reply(content=json.dumps({"operations": ops, "summary": summary}))


replies = st.one_of(
    st.just(_answer([add_op("Has a dog.")])),
    st.just(_answer([update_op("f1", "Has two dogs.")])),
    st.just(_answer([], "")),
    st.sampled_from([400, 401, 404, 429, 500, 502, 503]).map(lambda s: Reply(status=s)),
    st.sampled_from(["", "[]", "null", "{", "<html/>", '{"choices": 1}', "\udcff"]).map(
        lambda body: Reply(raw_body=body)
    ),
    st.just(Reply(raw_body="hello", content_type="text/plain")),
    st.just(Reply(drop=True)),
    st.text(max_size=40).map(lambda text: Reply(content=text)),
    st.floats(0.0, 0.05).map(
        lambda d: Reply(content='{"operations": [], "summary": "s"}', delay=d)
    ),
    st.just(Reply(content='{"operations": [], "summary": "late"}', delay=TIMEOUT + 0.2)),
)

faults = st.one_of(
    st.sampled_from(
        [
            Fault("none"),
            Fault("terminate_before"),
            Fault("drop_before"),
            Fault("rename_schema"),
            Fault("refuse_write"),
            Fault("statement_timeout"),
            Fault("no_connections"),
        ]
    ),
    st.builds(Fault, st.sampled_from(["terminate_during", "drop_during"]), st.floats(0, 0.03)),
)


async def _admin(admin_url: str, sql: str, *args: object) -> None:
    conn = await asyncpg.connect(admin_url)
    try:
        await conn.execute(sql, *args)
    finally:
        await conn.close()


async def _drop(admin_url: str, name: str) -> None:
    conn = await asyncpg.connect(admin_url)
    try:
        await drop_database(conn, name)
    finally:
        await conn.close()


@asynccontextmanager
async def scene(
    admin_url: str, template: str, fault: Fault
) -> AsyncIterator[tuple[asyncpg.Pool, str]]:
    """A seeded database of its own with `fault` applied before the pool is handed out."""
    name = "p_" + uuid.uuid4().hex[:12]
    await _admin(admin_url, f'create database "{name}" template "{template}"')
    url = with_database(admin_url, name)
    pool: asyncpg.Pool | None = None
    try:
        await _prepare(url, fault)
        if fault.kind == "statement_timeout":
            await _admin(admin_url, f"alter database \"{name}\" set statement_timeout = '1ms'")
        if fault.kind == "no_connections":
            await _admin(admin_url, f'alter database "{name}" allow_connections false')
        pool = await asyncpg.create_pool(url, min_size=0, max_size=3)
        assert pool is not None
        if fault.kind in ("terminate_before", "drop_before"):
            async with pool.acquire():
                pass  # one idle connection in the pool, about to lose its backend
        yield pool, name
    finally:
        if pool is not None:
            pool.terminate()
        await _drop(admin_url, name)


async def _prepare(url: str, fault: Fault) -> None:
    """One stored fact, then the fault that is set up in the schema itself."""
    conn = await asyncpg.connect(url)
    try:
        await conn.execute(
            "insert into stackbone_platform.memory_facts"
            " (agent_id, user_id, content, created_at, updated_at)"
            " values ('support', 'u1', 'Has a dog.', now(), now())"
        )
        if fault.kind == "rename_schema":
            await conn.execute("alter schema stackbone_platform rename to moved")
        if fault.kind == "refuse_write":
            await conn.execute(
                "alter table stackbone_platform.memory_calls"
                " add constraint refuse check (false) not valid"
            )
    finally:
        await conn.close()


async def _strike(admin_url: str, name: str, fault: Fault) -> None:
    await asyncio.sleep(fault.delay)
    if fault.kind.startswith("terminate"):
        await _admin(admin_url, OWN_SESSIONS, name)  # every session of the service's role
    elif fault.kind.startswith("drop"):
        await _drop(admin_url, name)


async def _operate(memory: Memory, op: str) -> Result[Any]:
    if op == "add":
        result: Result[Any] = await memory.add("I have a dog.", "support", "u1")
    elif op == "recall":
        result = await memory.recall("support", "u1")
    else:
        result = await memory.delete_all("support", "u1")
    return result


@settings(
    max_examples=50,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(op=st.sampled_from(["add", "recall", "delete_all"]), fault=faults, reply=replies)
async def test_every_operation_answers_an_envelope_under_any_fault(  # noqa: PLR0917
    pg_admin_url: str,
    template_db: str,
    model_server: ModelServer,
    op: str,
    fault: Fault,
    reply: Reply,
) -> None:
    model_server.replies.clear()
    model_server.requests.clear()
    model_server.replies.append(reply)
    config = MemoryConfig(base_url=model_server.url, api_key="k", timeout_seconds=TIMEOUT)
    model = ExtractionModel(config)
    async with scene(pg_admin_url, template_db, fault) as (pool, name):
        store = MemoryStore(pool)
        search = Search(SearchStore(pool), EmbeddingModel(config))
        memory = Memory(store, model, config, search)
        if fault.kind.endswith("_before"):
            await _strike(pg_admin_url, name, fault)
        striking = asyncio.create_task(_strike(pg_admin_url, name, fault))
        if not fault.kind.endswith("_during"):
            striking.cancel()
        result = await _operate(memory, op)
        await asyncio.gather(striking, return_exceptions=True)
    await model.aclose()
    assert isinstance(result, Result)
    event(f"{fault.kind} -> {'data' if result.error is None else result.error.code}")
    assert (result.data is None) != (result.error is None), result
    if result.error is not None:
        assert result.error.code in ERROR_CODES, result.error
    assert len(model_server.requests) <= 1  # never retried


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(fault=faults, read=st.sampled_from(["settings snapshot", "guidance", "extraction"]))
async def test_settings_snapshot_and_guidance_reads_fail_typed(
    pg_admin_url: str, template_db: str, fault: Fault, read: str
) -> None:
    """The reads a call and an add make besides memory itself raise only `MemoryFailure`."""
    async with scene(pg_admin_url, template_db, fault) as (pool, name):
        if fault.kind.endswith("_before"):
            await _strike(pg_admin_url, name, fault)
        striking = asyncio.create_task(_strike(pg_admin_url, name, fault))
        if not fault.kind.endswith("_during"):
            striking.cancel()
        try:
            if read == "settings snapshot":
                await load_call_settings(pool, "support", CodeDefaults(read=True))
            elif read == "guidance":
                await MemoryStore(pool).published_guidance()
            else:
                await load_extraction(pool)
            outcome = "read"
        except MemoryFailure as failure:
            outcome = failure.code
        await asyncio.gather(striking, return_exceptions=True)
    event(f"{fault.kind} -> {outcome}")
    assert outcome == "read" or outcome in ERROR_CODES
