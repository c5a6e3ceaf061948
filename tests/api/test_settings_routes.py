"""The per-agent settings routes, end to end over HTTP and real Postgres."""

from __future__ import annotations

from typing import Any

import asyncpg
import pytest

from callmemory.definition import define_agent
from memory.api import Memory
from memory.settings import CodeDefaults
from testkit.model_server import ModelServer
from tests.api.conftest import CODE_INSTRUCTIONS, auth
from tests.web_clients import Client, MakeClient
from worker.catalog import Catalog, prompt

URL = "/api/memory/settings/{}"
NO_BRIEF: dict[str, list[str] | None] = {"remember": [], "forget": [], "timeZone": None}
BRIEF_DEFAULT = {"remember": "default", "forget": "default", "timeZone": "default"}


async def get(client: Client, agent: str = "support") -> dict[str, Any]:
    response = await client.get(URL.format(agent), headers=auth())
    assert response.status == 200
    body: dict[str, Any] = await response.json()
    return body


async def put(client: Client, body: object, agent: str = "support") -> tuple[int, Any]:
    response = await client.put(URL.format(agent), json=body, headers=auth())
    return response.status, await response.json()


class TestRead:
    async def test_code_values_and_defaults_show_with_their_origins(self, client: Client) -> None:
        """Before any override, support shows its code values and the binding code fixed."""
        body = await get(client)
        assert body["agentId"] == "support"
        assert body["overrides"] == {}
        assert body["value"] == {
            "read": True,
            "save": False,
            "instructions": CODE_INSTRUCTIONS,
            **NO_BRIEF,
        }
        assert body["origins"] == {
            "read": "code",
            "save": "code",
            "instructions": "code",
            **BRIEF_DEFAULT,
        }
        assert body["binding"]["identityKey"] == "phoneNumber"
        assert body["binding"]["source"] == "code"
        assert body["binding"]["fixedAt"]

    async def test_an_agent_without_declarations_gets_defaults_and_no_binding(
        self, client: Client
    ) -> None:
        """Read and save default to off, no instructions, and no identity binding."""
        body = await get(client, "sales")
        assert body["value"] == {"read": False, "save": False, "instructions": None, **NO_BRIEF}
        assert body["origins"] == {
            "read": "default",
            "save": "default",
            "instructions": "default",
            **BRIEF_DEFAULT,
        }
        assert body["binding"] is None

    @pytest.mark.parametrize("method", ["GET", "PUT", "DELETE"])
    async def test_unknown_agent_is_404(self, client: Client, method: str) -> None:
        """Every settings route answers 404 for an agent the catalog does not declare."""
        response = await client.request(
            method, URL.format("nope"), json={"read": True}, headers=auth()
        )
        assert response.status == 404
        assert (await response.json())["error"]["code"] == "agent_not_found"


class TestSave:
    async def test_partial_put_changes_only_the_fields_sent(self, client: Client) -> None:
        """A PUT with one field leaves the others on their previous values and origins."""
        status, body = await put(client, {"save": True})
        assert status == 200
        assert body["overrides"] == {"save": True}
        assert body["value"]["save"] is True and body["origins"]["save"] == "studio"
        assert body["value"]["read"] is True and body["origins"]["read"] == "code"
        assert body["origins"]["instructions"] == "code"

    async def test_explicit_false_is_an_override(self, client: Client) -> None:
        """false over a code true wins and is reported as a studio override."""
        status, body = await put(client, {"read": False})
        assert status == 200
        assert body["overrides"] == {"read": False}
        assert body["value"]["read"] is False
        assert body["origins"]["read"] == "studio"

    async def test_all_fields_at_once(self, client: Client) -> None:
        """read, save and instructions saved together all come from the override."""
        every = {"read": False, "save": True, "instructions": "Be brief.", **NO_BRIEF}
        every["timeZone"] = "Europe/Madrid"
        status, body = await put(client, every)
        assert status == 200
        assert body["value"] == every
        assert set(body["origins"].values()) == {"studio"}

    async def test_get_after_put_shows_the_same(self, client: Client) -> None:
        """What a PUT answers is what a later GET reads."""
        _, saved = await put(client, {"instructions": "x" * 20_000}, agent="sales")
        assert await get(client, "sales") == saved

    async def test_overrides_persist_for_a_new_app_instance(self, make_client: MakeClient) -> None:
        """A second app on the same database sees the overrides the first one saved."""
        first = await make_client()
        _, saved = await put(first, {"read": False, "instructions": "Keep it short."})
        await first.close()
        second = await make_client()
        assert await get(second) == saved


class TestReset:
    async def test_field_reset_restores_code_value(self, client: Client) -> None:
        """Resetting one field removes its override only; the code value shows through."""
        await put(client, {"read": False, "save": True})
        response = await client.delete(
            URL.format("support"), params={"field": "read"}, headers=auth()
        )
        assert response.status == 200
        body = await response.json()
        assert body["overrides"] == {"save": True}
        assert body["value"]["read"] is True and body["origins"]["read"] == "code"

    async def test_reset_all_restores_code_and_defaults(self, client: Client) -> None:
        """Resetting everything leaves no overrides at all."""
        await put(client, {"read": False, "save": True, "instructions": "Other."}, agent="sales")
        response = await client.delete(URL.format("sales"), headers=auth())
        assert response.status == 200
        body = await response.json()
        assert body["overrides"] == {}
        assert body["origins"] == {
            "read": "default",
            "save": "default",
            "instructions": "default",
            **BRIEF_DEFAULT,
        }

    async def test_a_code_change_shows_through_after_reset(self, make_client: MakeClient) -> None:
        """After reset, a new code declaration (a redeploy) decides the value."""
        before = await make_client()
        await put(before, {"save": True}, agent="sales")
        await before.delete(URL.format("sales"), params={"field": "save"}, headers=auth())
        redeployed = Catalog(
            [
                define_agent(
                    name="sales",
                    instructions=prompt("support"),
                    memory=CodeDefaults(save=False, read=True),
                )
            ]
        )
        after = await make_client(catalog=redeployed)
        body = await get(after, "sales")
        assert body["value"]["save"] is False and body["origins"]["save"] == "code"
        assert body["value"]["read"] is True

    async def test_unknown_field_is_400(self, client: Client) -> None:
        """Only read, save and instructions can be reset; the message names the parameter."""
        response = await client.delete(
            URL.format("support"), params={"field": "identityKey"}, headers=auth()
        )
        assert response.status == 400
        error = (await response.json())["error"]
        assert error["code"] == "memory_invalid_request"
        assert error["field"] == "field"
        assert "read, save, instructions" in error["message"]


class TestInvalid:
    @pytest.mark.parametrize(
        ("body", "field", "rule"),
        [
            ({"read": "yes"}, "read", "boolean"),
            ({"save": 1}, "save", "boolean"),
            ({"read": None}, "read", "boolean"),
            ({"instructions": ""}, "instructions", "at least 1"),
            ({"instructions": "x" * 20_001}, "instructions", "at most 20,000"),
            ({"instructions": 5}, "instructions", "string"),
            ({"instructions": "a\u0000b"}, "instructions", "NUL"),
            ({"identityKey": ""}, "identityKey", "at least 1"),
            ({"color": "blue"}, "color", "not a known field"),
            ({"identity_key": "email"}, "identity_key", "not a known field"),
            ([{"read": True}], "body", "JSON object"),
            ("read", "body", "JSON object"),
        ],
    )
    async def test_bad_bodies_are_400_naming_field_and_rule(
        self, client: Client, body: object, field: str, rule: str
    ) -> None:
        """Each invalid body answers 400 with the field and the rule, and changes nothing."""
        before = await get(client)
        status, answer = await put(client, body)
        assert status == 400
        assert answer["error"]["code"] == "memory_invalid_request"
        assert answer["error"]["field"] == field
        assert rule in answer["error"]["message"]
        assert await get(client) == before

    @pytest.mark.parametrize(
        "raw", ["{", "", "not json", '{"read": NaN}', '{"read": true, "read": false}']
    )
    async def test_unparseable_json_is_400(self, client: Client, raw: str) -> None:
        """Broken JSON, NaN and duplicate keys are rejected before validation."""
        response = await client.put(
            URL.format("support"),
            data=raw,
            headers={**auth(), "Content-Type": "application/json"},
        )
        assert response.status == 400
        assert (await response.json())["error"]["code"] == "memory_invalid_request"


class TestBinding:
    async def test_same_key_again_succeeds(self, client: Client) -> None:
        """Offering the bound key again is accepted and changes nothing."""
        before = (await get(client))["binding"]
        status, body = await put(client, {"identityKey": "phoneNumber"})
        assert status == 200
        assert body["binding"] == before

    async def test_different_key_after_code_binding_is_409(self, client: Client) -> None:
        """A PUT with another key conflicts with the key code fixed, and saves nothing else."""
        status, body = await put(client, {"identityKey": "email", "read": False})
        assert status == 409
        assert body["error"]["code"] == "memory_conflict"
        assert body["error"]["field"] == "identityKey"
        after = await get(client)
        assert after["binding"]["identityKey"] == "phoneNumber"
        assert after["overrides"] == {}

    async def test_first_put_binds_then_other_key_conflicts(self, client: Client) -> None:
        """An unbound agent is bound by the settings API, then fixed for ever."""
        status, body = await put(client, {"identityKey": "customerId"}, agent="sales")
        assert status == 200
        assert body["binding"]["identityKey"] == "customerId"
        assert body["binding"]["source"] == "studio"
        status, _ = await put(client, {"identityKey": "email"}, agent="sales")
        assert status == 409

    async def test_binding_survives_reset_code_removal_and_delete_all(
        self, make_client: MakeClient, memory: Memory, model_server: ModelServer
    ) -> None:
        """Reset, a catalog without the declaration and erasing memory all keep the key."""
        client = await make_client()
        bound = (await get(client))["binding"]
        await client.delete(URL.format("support"), headers=auth())
        model_server.answer([{"op": "add", "handle": None, "content": "Likes tea."}])
        assert (await memory.add("I like tea", "support", "+34600000000")).error is None
        erased = await client.post(
            "/api/memory/customers/support/delete-all",
            json={"userId": "+34600000000"},
            headers=auth(),
        )
        assert erased.status == 200
        undeclared = await make_client(
            catalog=Catalog([define_agent(name="support", instructions=prompt("support"))])
        )
        body = await get(undeclared)
        assert body["binding"] == bound
        assert body["origins"]["read"] == "default"

    async def test_a_conflicting_code_declaration_keeps_the_stored_binding(
        self, make_client: MakeClient, pool: asyncpg.Pool
    ) -> None:
        """A redeploy declaring another key leaves the stored binding as it was."""
        first = await make_client()
        bound = (await get(first))["binding"]
        changed = Catalog(
            [
                define_agent(
                    name="support",
                    instructions=prompt("support"),
                    memory=CodeDefaults(identity_key="email"),
                )
            ]
        )
        second = await make_client(catalog=changed)
        assert (await get(second))["binding"] == bound
        count = await pool.fetchval(
            "select count(*) from stackbone_platform.memory_identity_bindings"
        )
        assert count == 1
