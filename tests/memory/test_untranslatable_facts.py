"""A model's facts and summary holding a NUL or a lone surrogate (issue 31, defect 7): saved as
said, never refused, and read back exactly through every read path of `memory.api` (escaped
where Postgres stores them, `memory.store.stored_text`). Before, such an answer was refused as
`memory_invalid_model_output` and nothing was written."""

from __future__ import annotations

import json

import asyncpg
import pytest

from memory.api import Memory
from memory.contract import _limits as limits
from memory.ops import OpsEvent
from memory.search._embeddings import embedding_input
from memory.store import ops_after
from testkit.model_server import ModelServer
from tests.memory.helpers import add_op, delete_op, update_op
from tests.memory.search_helpers import semantic, vectors
from tests.memory.test_cli_and_migrations import cli

__all__ = ["semantic"]  # the fixture, used by name

FACT = "Part\x00number AB-12 \ud83d kept"  # a NUL and a lone (high) surrogate
SUMMARY = "Asked\x00about \udfff parts, \U0010ffff0 literally"  # and the escape's own character
S = "stackbone_platform"


async def _saved(memory: Memory, server: ModelServer, user: str = "u1") -> None:
    server.answer([add_op(FACT)], SUMMARY)
    result = await memory.add("hi", "support", user)
    assert result.data is not None, result.error
    assert [f.content for f in result.data.facts] == [FACT]
    assert result.data.call is not None and result.data.call.summary == SUMMARY


async def test_the_answer_is_saved_and_every_read_returns_it_exactly(
    memory: Memory, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    events: list[OpsEvent] = []
    memory.on("ops", events.append)
    await _saved(memory, model_server)
    recall = (await memory.recall("support", "u1")).data
    assert recall is not None
    assert [f.content for f in recall.facts] == [FACT]
    assert [c.summary for c in recall.calls] == [SUMMARY]
    history = (await memory.history("support", "u1")).data
    assert history is not None and [v.content for v in history.versions] == [FACT]
    [logged] = await ops_after(pool, "support", 0, 10)
    assert [op["text"] for op in logged["ops"]] == [FACT]
    assert [[op["text"] for op in e["ops"]] for e in events] == [[FACT]]
    # stored escaped: Postgres holds no NUL (it cannot), and the text is valid UTF-8
    content = await pool.fetchval(f"select content from {S}.memory_facts")
    assert "\x00" not in content and content != FACT


async def test_updates_and_deletes_keep_every_version_exactly(
    memory: Memory, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    await _saved(memory, model_server)
    changed = "Part\x00number AB-13 \udc00"
    model_server.answer([update_op("f1", changed)], SUMMARY)
    result = await memory.add("hi", "support", "u1")
    assert result.data is not None, result.error
    assert [f.content for f in result.data.facts] == [changed]
    # the model saw the stored fact as it was said
    sent = model_server.requests[-1]["messages"][-1]["content"]
    assert json.dumps(FACT, ensure_ascii=False) in sent
    model_server.answer([delete_op("f1")], SUMMARY)
    assert (await memory.add("hi", "support", "u1")).error is None
    history = (await memory.history("support", "u1")).data
    assert history is not None
    assert [(v.content, v.ended_by) for v in history.versions] == [
        (FACT, "update"),
        (changed, "delete"),
    ]
    [_, updated, deleted] = await ops_after(pool, "support", 0, 10)
    assert updated["ops"][0]["text"] == changed and deleted["ops"][0]["text"] is None


async def test_the_same_text_again_is_a_duplicate_not_a_new_fact(
    memory: Memory, model_server: ModelServer
) -> None:
    await _saved(memory, model_server)
    model_server.answer([add_op(FACT)], SUMMARY)
    result = await memory.add("hi", "support", "u1")
    assert result.error is not None and result.error.code == "memory_invalid_model_output"
    assert "duplicates" in result.error.message and "\x00" not in result.error.message


@pytest.mark.parametrize(
    ("fact", "summary", "saved"),
    [
        ("\x00" * limits.MAX_FACT_CHARS, "s", True),
        ("\x00" * (limits.MAX_FACT_CHARS + 1), "s", False),
        ("f", "\ud800" * limits.MAX_SUMMARY_CHARS, True),
        ("f", "\ud800" * (limits.MAX_SUMMARY_CHARS + 1), False),
    ],
    ids=["fact at its limit", "fact past it", "summary at its limit", "summary past it"],
)
async def test_limits_count_the_model_s_characters_not_the_escaped_ones(
    memory: Memory, model_server: ModelServer, fact: str, summary: str, saved: bool
) -> None:
    model_server.answer([add_op(fact)], summary)
    result = await memory.add("hi", "support", "u1")
    if saved:
        assert result.data is not None, result.error
        recall = (await memory.recall("support", "u1")).data
        assert recall is not None
        assert ([f.content for f in recall.facts], [c.summary for c in recall.calls]) == (
            [fact],
            [summary],
        )
    else:
        assert result.error is not None and result.error.code == "memory_invalid_model_output"
        assert "longer than" in result.error.message


async def test_text_search_reads_the_character_as_a_word_break(
    memory: Memory, model_server: ModelServer
) -> None:
    await _saved(memory, model_server)
    for query in ("number", "part number", "kept"):
        found = (await memory.search("support", query, mode="lexical")).data
        assert found is not None and [h.text for h in found.items] == [FACT], query
    found = (await memory.search("support", "number", "u1", mode="lexical")).data
    assert found is not None and [h.text for h in found.items] == [FACT]


@pytest.mark.pgvector
async def test_the_fact_is_embedded_as_it_reads_and_found_by_meaning(
    semantic: Memory, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    await _saved(semantic, model_server)
    await semantic.drain_indexing()
    assert [v["embedded"] for v in await vectors(pool)] == [True]
    sent = [text for r in model_server.embedding_requests for text in r["input"]]
    assert sent == ["Part number AB-12 \ufffd kept"]
    found = (await semantic.search("support", "part number", mode="semantic")).data
    assert found is not None and [h.text for h in found.items] == [FACT]


def test_embedding_input_is_the_text_as_it_reads() -> None:
    assert embedding_input("a\x00b \ud800c \U0001f600") == "a b \ufffdc \U0001f600"
    assert embedding_input("plain") == "plain"


async def test_the_cli_prints_it_exactly(
    memory: Memory, model_server: ModelServer, database_env: dict[str, str]
) -> None:
    await _saved(memory, model_server, "+34 1")
    code, body = await cli("recall", "support", "+34 1", env=database_env)
    assert code == 0, body
    assert ([f["content"] for f in body["facts"]], [c["summary"] for c in body["calls"]]) == (
        [FACT],
        [SUMMARY],
    )
    code, body = await cli("history", "support", "+34 1", env=database_env)
    assert (code, [v["content"] for v in body["versions"]]) == (0, [FACT])
    code, body = await cli("ops", "support", env=database_env)
    assert (code, body["events"][0]["ops"][0]["text"]) == (0, FACT)
    code, body = await cli("search", "support", "number", "--mode", "lexical", env=database_env)
    assert (code, [i["text"] for i in body["items"]]) == (0, [FACT])
