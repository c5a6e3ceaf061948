"""Provenance against real Postgres and the local model server: each fact version's source in
recall (the call's opening included), history, search, the `memory.ops` event and the ops log;
rows from before read as unknown; the extraction request asks for the notes."""

from __future__ import annotations

from typing import Any, TypeVar

import asyncpg

from memory.api import Memory
from memory.contract import UNKNOWN_SOURCE, Result, Source, Writer
from memory.extraction._request import OUTPUT_SCHEMA
from memory.ops import OpsEvent
from memory.settings import CodeDefaults
from memory.store import offer_code_bindings, open_call, ops_after
from testkit.model_server import ModelServer
from tests.memory.helpers import add_op, delete_op, update_op

T = TypeVar("T")
S = "stackbone_platform"
AGENT, USER = "support", "+34 600 111 222"
HEARD = [
    {"role": "assistant", "content": "Hello, how can I help?"},
    {"role": "user", "content": "Please ALWAYS   email me, never call."},
]
CALL = {"run_id": "job-7", "channel": "voice", "job_id": "job-7", "first_turn": 4}


def data(result: Result[T]) -> T:
    assert result.error is None and result.data is not None, result.error
    return result.data


def noted(op: dict[str, Any], **notes: object) -> dict[str, Any]:
    return {**op, **notes}


async def test_a_fact_keeps_where_it_came_from(memory: Memory, model_server: ModelServer) -> None:
    """Channel, call, writer, model, the evidence found and its turns (counted from the
    content's place in the call); an invented quote is dropped, never stored."""
    model_server.answer(
        [
            noted(add_op("Prefers email."), kind="contact", confidence=0.9, evidence="email me"),
            noted(add_op("Has a cat."), kind="other", confidence=1, evidence="I have a cat"),
        ]
    )
    added = await memory.add(HEARD, AGENT, USER, CALL)
    assert added.error is None, added.error
    recall = data(await memory.recall(AGENT, USER))
    email, cat = (f.source for f in recall.facts)
    assert email.channel == "voice" and email.call_id == "job-7" and email.session_id is None
    assert email.writer == Writer(AGENT, "job-7", None)
    assert email.model == data(added).call.source.model and email.model
    assert (email.evidence, email.turns, email.kind, email.confidence) == (
        "email me",
        (5,),
        "contact",
        0.9,
    )
    assert (cat.evidence, cat.turns, cat.kind, cat.confidence) == (None, (), "other", 1.0)
    assert recall.calls[0].source.channel == "voice"
    assert recall.calls[0].source.evidence is None  # a call record has no quote


async def test_history_keeps_each_versions_source(
    memory: Memory, model_server: ModelServer
) -> None:
    model_server.answer([noted(add_op("Lives in Cusco."), evidence="never call")])
    assert (await memory.add(HEARD, AGENT, USER, {"channel": "cli"})).error is None
    model_server.answer([update_op("f1", "Lives in Lima.")])
    assert (await memory.add("I moved to Lima.", AGENT, USER, {"channel": "http"})).error is None
    versions = data(await memory.history(AGENT, USER)).versions
    assert [(v.content, v.source.channel, v.source.evidence) for v in versions] == [
        ("Lives in Cusco.", "cli", "never call"),
        ("Lives in Lima.", "http", None),
    ]


async def test_the_ops_event_and_its_log_row_carry_the_source(
    memory: Memory, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    """Live and replayed alike: the event's channel and session, each op's notes and source,
    and a delete's reason."""
    events: list[OpsEvent] = []
    memory.on("ops", events.append)
    model_server.answer([add_op("Has a dog.")])
    assert (await memory.add("I have a dog.", AGENT, USER)).error is None
    model_server.answer([noted(delete_op("f1"), reason="the dog died", evidence="nonsense")])
    chat = {"channel": "chat", "session_id": "sess-9", "key": "ci"}
    assert (await memory.add("My dog died.", AGENT, USER, chat)).error is None
    live = events[-1]
    assert (live["channel"], live["session_id"]) == ("chat", "sess-9")
    (op,) = live["ops"]
    assert (op["op"], op["reason"], op["evidence"]) == ("delete", "the dog died", None)
    assert op["source"]["writer"] == {"agent": AGENT, "job": None, "key": "ci"}
    replayed = await ops_after(pool, AGENT, 0, 10)
    assert replayed[-1] == live
    assert replayed[0]["channel"] == "unknown"  # written without a channel
    assert replayed[0]["ops"][0]["source"]["channel"] == "unknown"


async def test_rows_from_before_read_as_an_unknown_source(
    memory: Memory, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    model_server.answer([add_op("Prefers tea.")])
    assert (await memory.add(HEARD, AGENT, USER, CALL)).error is None
    for table in ("memory_facts", "memory_calls", "memory_ops"):
        await pool.execute(f"update {S}.{table} set source = null")
    await pool.execute(f"update {S}.memory_calls set channel = null")
    recall = data(await memory.recall(AGENT, USER))
    assert recall.facts[0].source == UNKNOWN_SOURCE == recall.calls[0].source
    assert data(await memory.history(AGENT, USER)).versions[0].source == UNKNOWN_SOURCE
    (event,) = await ops_after(pool, AGENT, 0, 10)
    assert event["channel"] == "unknown" and event["session_id"] is None
    # an op logged before provenance had none of the notes: they read as absent
    await pool.execute(f"update {S}.memory_ops set ops = ops #- '{{0,source}}'")
    (event,) = await ops_after(pool, AGENT, 0, 10)
    assert event["ops"][0]["source"]["channel"] == "unknown" and event["ops"][0]["kind"] is None


async def test_the_calls_opening_recalls_the_source_in_its_one_statement(
    memory: Memory, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    model_server.answer([noted(add_op("Prefers email."), evidence="email me", kind="contact")])
    assert (await memory.add(HEARD, AGENT, USER, CALL)).error is None
    await offer_code_bindings(pool, {AGENT: "phoneNumber"})
    reads = CodeDefaults(read=True, save=True, identity_key="phoneNumber")
    opened = await open_call(pool, AGENT, reads, {"phoneNumber": USER}, 5)
    assert opened.recall is not None
    (fact,) = opened.recall.facts
    assert isinstance(fact.source, Source)
    assert (fact.source.channel, fact.source.evidence, fact.source.kind) == (
        "voice",
        "email me",
        "contact",
    )
    assert opened.recall.calls[0].source.call_id == "job-7"


async def test_search_hits_carry_the_facts_source(
    memory: Memory, model_server: ModelServer
) -> None:
    model_server.answer([noted(add_op("Prefers email."), evidence="email me")])
    assert (await memory.add(HEARD, AGENT, USER, CALL)).error is None
    found = data(await memory.search(AGENT, "email", USER, mode="lexical"))
    assert [(h.text, h.source and h.source.evidence) for h in found.items] == [
        ("Prefers email.", "email me")
    ]


async def test_the_extraction_request_asks_for_the_notes(
    memory: Memory, model_server: ModelServer
) -> None:
    """Strict structured output requires every key, each nullable."""
    model_server.answer([])
    assert (await memory.add(HEARD, AGENT, USER)).error is None
    item = OUTPUT_SCHEMA["properties"]["operations"]["items"]
    assert {"kind", "confidence", "evidence", "reason"} <= set(item["required"])
    protocol = model_server.requests[-1]["messages"][0]["content"]
    assert '"evidence"' in protocol and '"reason"' in protocol
