"""A call's opening statement (migration 0021): settings, the identity under the bound key and
recall in one statement, every rule of the separate reads kept."""

from __future__ import annotations

import asyncpg

from memory.settings import CallSettings, CodeDefaults, Overrides, SettingsUpdate
from memory.store import offer_code_bindings, open_call, reads_of, save_settings

S = "stackbone_platform"
AGENT = "support"
PHONE, EMAIL = "+34 600 111 222", "ana@example.com"
READS = CodeDefaults(read=True, save=True, identity_key="phoneNumber")


async def _fact(pool: asyncpg.Pool, user_id: str, text: str) -> None:
    await pool.execute(
        f"insert into {S}.memory_facts (agent_id, user_id, content, created_at, updated_at)"
        " values ($1, $2, $3, now(), now())",
        AGENT,
        user_id,
        text,
    )


async def test_the_bound_key_picks_the_offered_identity_and_recalls_that_person(
    pool: asyncpg.Pool,
) -> None:
    await offer_code_bindings(pool, {AGENT: "email"})
    await _fact(pool, EMAIL, "Prefers email.")
    await _fact(pool, PHONE, "Called from a phone.")
    seen: list[CallSettings] = []
    opened = await open_call(
        pool, AGENT, READS, {"phoneNumber": PHONE, "email": EMAIL}, 5, on_settings=seen.append
    )
    assert opened.user_id == EMAIL
    assert opened.recall is not None
    assert [f.content for f in opened.recall.facts] == ["Prefers email."]
    assert seen == [opened.settings]  # sent before recall, the same settings as the row's
    assert opened.settings.binding is not None
    assert opened.settings.binding.identity_key == "email"


async def test_no_identity_under_the_bound_key_recalls_nobody(pool: asyncpg.Pool) -> None:
    await offer_code_bindings(pool, {AGENT: "phoneNumber"})
    await _fact(pool, EMAIL, "Prefers email.")
    opened = await open_call(pool, AGENT, READS, {"email": EMAIL}, 5)
    assert (opened.user_id, opened.recall) == (None, None)


async def test_read_off_recalls_nothing_and_the_code_default_reads(pool: asyncpg.Pool) -> None:
    await offer_code_bindings(pool, {AGENT: "phoneNumber"})
    await _fact(pool, PHONE, "Called from a phone.")
    offered = {"phoneNumber": PHONE}
    by_code = await open_call(pool, AGENT, READS, offered, 5)
    assert by_code.recall is not None and len(by_code.recall.facts) == 1
    save_only = SettingsUpdate(Overrides(read=False), None)
    await save_settings(pool, AGENT, save_only, "test")
    off = await open_call(pool, AGENT, READS, offered, 5)
    assert (off.settings.read, off.settings.save, off.recall) == (False, True, None)
    unset = await open_call(pool, "other-agent", CodeDefaults(), offered, 5)
    assert (unset.settings.read, unset.settings.binding, unset.recall) == (False, None, None)


async def test_the_newest_calls_are_limited(pool: asyncpg.Pool) -> None:
    await offer_code_bindings(pool, {AGENT: "phoneNumber"})
    await pool.execute(
        f"insert into {S}.memory_calls (agent_id, user_id, started_at, summary, created_at)"
        " select $1, $2, now() - c * interval '1 day', 'call ' || c, now()"
        " from generate_series(1, 4) c",
        AGENT,
        PHONE,
    )
    opened = await open_call(pool, AGENT, READS, {"phoneNumber": PHONE}, 2)
    assert opened.recall is not None
    assert [c.summary for c in opened.recall.calls] == ["call 1", "call 2"]


async def test_a_recall_leaves_its_read_record_in_the_same_statement(pool: asyncpg.Pool) -> None:
    """The job as reader, channel voice, the counts recalled; nothing when nobody was recalled
    (read off, no identity under the bound key)."""
    await offer_code_bindings(pool, {AGENT: "phoneNumber"})
    await _fact(pool, PHONE, "Called from a phone.")
    opened = await open_call(pool, AGENT, READS, {"phoneNumber": PHONE}, 5, reader="AJ_job1")
    assert opened.recall is not None
    [read] = await reads_of(pool, AGENT, PHONE)
    assert (read.reader, read.channel, read.route) == ("AJ_job1", "voice", "call_opening")
    assert read.returned == {"facts": 1, "calls": 0}
    await open_call(pool, AGENT, READS, {"email": EMAIL}, 5, reader="AJ_job2")  # nobody
    await save_settings(pool, AGENT, SettingsUpdate(Overrides(read=False), None), "test")
    await open_call(pool, AGENT, READS, {"phoneNumber": PHONE}, 5, reader="AJ_job3")  # read off
    assert await pool.fetchval(f"select count(*) from {S}.memory_reads") == 1
