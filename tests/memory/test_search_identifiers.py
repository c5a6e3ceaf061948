"""Identifier search: a prefix or fragment of an opaque user id, wildcards matching themselves."""

from __future__ import annotations

import asyncpg
import pytest

from memory.api import Memory
from testkit.model_server import ModelServer
from tests.memory.search_helpers import contacts, remember

IDS = [
    "+34 600 111 222",
    "+34600111333",
    "ana_100%@example.com",
    "anax100y@example.com",
    "Back\\slash",
    "José Ñúñez",
    "crm/42",
]


@pytest.fixture
async def people(memory: Memory, model_server: ModelServer) -> None:
    for user in IDS:
        await remember(memory, model_server, user, "Is a customer.")


@pytest.mark.usefixtures("people")
@pytest.mark.parametrize(
    ("fragment", "found"),
    [
        ("+34", ["+34600111333", "+34 600 111 222"]),  # prefix; shorter ids first
        ("600111", ["+34600111333"]),  # a fragment, byte for byte (spaces are not skipped)
        ("111 222", ["+34 600 111 222"]),
        ("%", ["ana_100%@example.com"]),  # a LIKE wildcard only matches itself
        ("_", ["ana_100%@example.com"]),
        ("ana_", ["ana_100%@example.com"]),
        ("\\", ["Back\\slash"]),
        ("ANA", ["ana_100%@example.com", "anax100y@example.com"]),  # case-insensitive
        ("josé ñ", ["José Ñúñez"]),
        ("crm/42", ["crm/42"]),
        ("nobody", []),
    ],
)
async def test_fragments_find_exactly_the_ids_containing_them(
    memory: Memory, fragment: str, found: list[str]
) -> None:
    result = await memory.search("support", fragment, mode="identifier")
    assert contacts(result) == found
    assert result.data is not None and result.data.mode == "identifier"
    assert all(h.id is None and h.text is None for h in result.data.items)


@pytest.mark.usefixtures("people")
async def test_an_exact_id_ranks_before_longer_ones(
    memory: Memory, model_server: ModelServer
) -> None:
    await remember(memory, model_server, "crm/4", "Is a customer.")
    result = await memory.search("support", "crm/4", mode="identifier")
    assert contacts(result) == ["crm/4", "crm/42"]
    assert [h.score for h in result.data.items] == [1.0, 0.8]  # type: ignore[union-attr]


async def test_a_contact_is_found_while_anything_of_theirs_is_stored(
    memory: Memory, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    """Call records alone keep a contact findable; an erased contact is not found."""
    model_server.answer([], "Only small talk.")
    assert (await memory.add("hello", "support", "+34 999")).error is None
    assert contacts(await memory.search("support", "999", mode="identifier")) == ["+34 999"]
    await memory.delete_all("support", "+34 999")
    assert await pool.fetchval("select count(*) from stackbone_platform.memory_revisions") == 1
    assert contacts(await memory.search("support", "999", mode="identifier")) == []


async def test_identifier_search_is_per_agent_and_bounded_by_k(
    memory: Memory, pool: asyncpg.Pool
) -> None:
    await pool.execute(
        """insert into stackbone_platform.memory_revisions (agent_id, user_id, revision)
            select 'support', 'p-' || g, 1 from generate_series(1, 60) g;
        insert into stackbone_platform.memory_facts
            (agent_id, user_id, content, created_at, updated_at)
            select 'support', 'p-' || g, 'x', now(), now() from generate_series(1, 60) g"""
    )
    assert len(contacts(await memory.search("support", "p-", k=50, mode="identifier"))) == 50
    assert contacts(await memory.search("sales", "p-", mode="identifier")) == []
