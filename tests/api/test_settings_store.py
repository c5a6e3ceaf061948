"""The settings store against real Postgres: the one-query call snapshot and code bindings."""

from __future__ import annotations

import asyncio
import logging

import asyncpg
import pytest

from memory.settings import CodeDefaults, Overrides, SettingsUpdate
from memory.store._settings import (
    load_call_settings,
    offer_code_bindings,
    reset_settings,
    save_settings,
)

CODE = CodeDefaults(read=True, instructions="Code policy.", identity_key="phoneNumber")


class TestLoadCallSettings:
    async def test_one_round_trip(self, database_url: str, pool: asyncpg.Pool) -> None:
        """Everything a call needs comes back from exactly one query."""
        await offer_code_bindings(pool, {"support": "phoneNumber"})
        conn = await asyncpg.connect(database_url)
        queries: list[str] = []
        conn.add_query_logger(lambda record: queries.append(record.query))
        try:
            settings = await load_call_settings(conn, "support", CODE)
        finally:
            await conn.close()
        assert len(queries) == 1
        assert settings.binding is not None
        assert settings.binding.identity_key == "phoneNumber"

    async def test_unbound_agent_has_no_binding(self, pool: asyncpg.Pool) -> None:
        """No binding means the call runs without memory, whatever the flags say."""
        settings = await load_call_settings(pool, "support", CODE)
        assert (settings.read, settings.save, settings.instructions) == (
            True,
            False,
            "Code policy.",
        )
        assert settings.binding is None

    async def test_overrides_and_resets_are_seen_by_the_next_load(self, pool: asyncpg.Pool) -> None:
        """A save is visible to the next call; a reset brings the code value back."""
        update = SettingsUpdate(Overrides(read=False, save=True, instructions="Studio."), None)
        await save_settings(pool, "support", update, "tester")
        saved = await load_call_settings(pool, "support", CODE)
        assert (saved.read, saved.save, saved.instructions) == (False, True, "Studio.")
        await reset_settings(pool, "support", "instructions", "tester")
        reset = await load_call_settings(pool, "support", CODE)
        assert (reset.read, reset.save, reset.instructions) == (False, True, "Code policy.")


class TestOfferCodeBindings:
    async def test_outcomes_and_conflict_logged_as_error(
        self, pool: asyncpg.Pool, caplog: pytest.LogCaptureFixture
    ) -> None:
        """First offer binds, the same key is fine, another key is logged and ignored."""
        caplog.set_level(logging.INFO)
        assert await offer_code_bindings(pool, {"a": "email"}) == {"a": "bound"}
        assert await offer_code_bindings(pool, {"a": "email"}) == {"a": "same"}
        assert await offer_code_bindings(pool, {"a": "phoneNumber"}) == {"a": "conflict"}
        conflicts = [
            r for r in caplog.records if r.getMessage() == "memory.identity_binding_conflict"
        ]
        assert len(conflicts) == 1
        assert conflicts[0].levelno == logging.ERROR
        assert conflicts[0].__dict__["agent_id"] == "a"
        settings = await load_call_settings(pool, "a", CodeDefaults(identity_key="phoneNumber"))
        assert settings.binding is not None and settings.binding.identity_key == "email"

    async def test_concurrent_offers_bind_exactly_one_key(self, pool: asyncpg.Pool) -> None:
        """Processes starting together with different keys leave one binding and one winner."""
        results = await asyncio.gather(
            *(offer_code_bindings(pool, {"race": f"key{i}"}) for i in range(8))
        )
        outcomes = sorted(r["race"] for r in results)
        assert outcomes.count("bound") == 1
        assert outcomes.count("conflict") == 7
