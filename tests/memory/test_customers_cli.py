"""`caller-memory memory customers AGENT`: an agent's customers a page at a time, in byte order
of their user id, with their counts; a bad page size named in one line."""

from __future__ import annotations

import asyncpg
import pytest

from memory.store import MAX_CUSTOMERS, customers_after
from tests.memory.test_cli_and_migrations import cli

_S = "stackbone_platform"
# byte order: "+" (0x2B) < "A" < "a" < "é"; a user with facts only, one with calls only
PEOPLE = {"+34 1": (2, 1), "Ana": (0, 2), "ana": (1, 0), "éva": (1, 1)}


async def seed(pool: asyncpg.Pool, agent: str = "support") -> None:
    for user, (facts, calls) in PEOPLE.items():
        for n in range(facts):
            await pool.execute(
                f"insert into {_S}.memory_facts (agent_id, user_id, content, created_at,"
                " updated_at) values ($1, $2, $3, now(), now())",
                agent,
                user,
                f"fact {n}",
            )
        for n in range(calls):
            await pool.execute(
                f"insert into {_S}.memory_calls (agent_id, user_id, started_at, summary,"
                " created_at) values ($1, $2, now() - make_interval(days => $3), 'x', now())",
                agent,
                user,
                n,
            )


async def test_pages_list_every_customer_once_in_byte_order(pool: asyncpg.Pool) -> None:
    await seed(pool)
    await seed(pool, agent="sales")  # another agent's people are never listed
    await pool.execute(
        f"insert into {_S}.memory_facts (agent_id, user_id, content, created_at,"
        " updated_at) values ('sales', 'zed', 'x', now(), now())"
    )
    first = await customers_after(pool, "support", "", 2)
    rest = await customers_after(pool, "support", first[-1].user_id, 2)
    listed = first + rest
    assert [c.user_id for c in listed] == list(PEOPLE)
    assert [(c.facts, c.calls) for c in listed] == list(PEOPLE.values())
    assert listed[2].last_call_at is None and listed[1].last_call_at is not None
    assert await customers_after(pool, "support", listed[-1].user_id, 2) == []
    assert await customers_after(pool, "nobody", "", 2) == []


async def test_cli_pages_with_next_and_after(
    pool: asyncpg.Pool, database_env: dict[str, str]
) -> None:
    await seed(pool)
    code, body = await cli("customers", "support", "--limit", "3", env=database_env)
    assert code == 0, body
    assert [c["userId"] for c in body["customers"]] == ["+34 1", "Ana", "ana"]
    assert body["customers"][0] == {
        "userId": "+34 1",
        "facts": 2,
        "calls": 1,
        "lastCallAt": body["customers"][0]["lastCallAt"],
    }
    assert body["next"] == "ana"
    code, body = await cli("customers", "support", "--after", "ana", env=database_env)
    assert (code, [c["userId"] for c in body["customers"]], body["next"]) == (0, ["éva"], None)


@pytest.mark.parametrize(
    ("limit", "code"), [("0", 2), ("1", 0), (str(MAX_CUSTOMERS), 0), (str(MAX_CUSTOMERS + 1), 2)]
)
async def test_the_page_size_is_checked_at_its_limits(
    database_env: dict[str, str], limit: str, code: int
) -> None:
    got, body = await cli("customers", "support", "--limit", limit, env=database_env)
    assert got == code, body
    if code == 2:
        assert "--limit" in body["stderr"] and len(body["stderr"].strip().splitlines()) == 1


async def test_a_page_size_that_is_not_a_number_is_named(database_env: dict[str, str]) -> None:
    code, body = await cli("customers", "support", "--limit", "all", env=database_env)
    assert code == 2 and "--limit" in body["stderr"]
