"""The settings activity log: who, when, which agent and which field names, never the text."""

from __future__ import annotations

import asyncpg
import pytest

from tests.api.conftest import auth
from tests.web_clients import Client, MakeClient

SECRET_TEXT = "Remember the caller's favourite colour: ultraviolet-7731."


async def entries(client: Client, **params: str) -> list[dict[str, object]]:
    response = await client.get("/api/memory/activity", params=params, headers=auth())
    assert response.status == 200
    body = await response.json()
    return list(body["entries"])


class TestActivity:
    async def test_saves_and_resets_are_recorded_newest_first(self, client: Client) -> None:
        """Each save and reset records the key name, the agent and the field names."""
        await client.put(
            "/api/memory/settings/sales",
            json={"instructions": SECRET_TEXT, "read": True},
            headers=auth("config-writer"),
        )
        await client.delete(
            "/api/memory/settings/sales", params={"field": "read"}, headers=auth("admin")
        )
        found = await entries(client, agentId="sales")
        assert [(e["actor"], e["action"], e["fields"]) for e in found] == [
            ("admin", "reset", ["read"]),
            ("config-writer", "save", ["read", "instructions"]),
        ]
        assert all(e["agentId"] == "sales" and e["at"] for e in found)

    async def test_code_binding_is_recorded_once(self, make_client: MakeClient) -> None:
        """The identity key fixed by code at start-up appears once, however often it starts."""
        await make_client()
        client = await make_client()
        found = await entries(client, agentId="support")
        assert [(e["actor"], e["action"], e["fields"]) for e in found] == [
            ("code", "bind", ["identityKey"])
        ]

    async def test_stored_rows_never_contain_instruction_or_guidance_text(
        self, client: Client, pool: asyncpg.Pool
    ) -> None:
        """Whatever is saved, no column of any activity row holds the text itself."""
        await client.put(
            "/api/memory/settings/support", json={"instructions": SECRET_TEXT}, headers=auth()
        )
        await client.put(
            "/api/memory/extraction/guidance/draft", json={"text": SECRET_TEXT}, headers=auth()
        )
        await client.post("/api/memory/extraction/guidance/publish", headers=auth())
        await client.delete("/api/memory/settings/support", headers=auth())
        rows = await pool.fetch("select * from stackbone_platform.memory_settings_activity")
        assert len(rows) >= 4
        dumped = repr([dict(r) for r in rows])
        assert "ultraviolet" not in dumped
        assert "colour" not in dumped

    async def test_shared_changes_are_listed_without_agent(self, client: Client) -> None:
        """Guidance changes have no agent and appear in the unfiltered list only."""
        await client.put(
            "/api/memory/extraction/guidance/draft", json={"text": "Draft."}, headers=auth()
        )
        everything = await entries(client)
        assert everything[0]["agentId"] is None
        assert everything[0]["fields"] == ["guidanceDraft"]
        assert all(e["agentId"] == "support" for e in await entries(client, agentId="support"))

    async def test_limit(self, client: Client) -> None:
        """`limit` bounds the number of entries returned."""
        for value in (True, False, True):
            await client.put("/api/memory/settings/sales", json={"read": value}, headers=auth())
        assert len(await entries(client, limit="2")) == 2

    @pytest.mark.parametrize(
        ("params", "status"),
        [({"limit": "0"}, 400), ({"limit": "x"}, 400), ({"agentId": "no"}, 404)],
    )
    async def test_bad_queries(self, client: Client, params: dict[str, str], status: int) -> None:
        response = await client.get("/api/memory/activity", params=params, headers=auth())
        assert response.status == status
