"""Remember / forget briefs through the settings contract: code, override, origin, reset, log."""

from __future__ import annotations

from typing import Any

import asyncpg

from callmemory.definition import define_agent
from memory.settings import CodeDefaults
from memory.store._settings import load_call_settings
from tests.api.conftest import auth
from tests.web_clients import Client, MakeClient
from worker.catalog import Catalog, prompt

URL = "/api/memory/settings/clinic"
CODE = CodeDefaults(read=True, save=True, remember=("Allergies",), identity_key="phoneNumber")


def catalog() -> Catalog:
    return Catalog([define_agent(name="clinic", instructions=prompt("support"), memory=CODE)])


async def call(client: Client, method: str, body: object = None, query: str = "") -> Any:
    response = await client.request(method, URL + query, json=body, headers=auth())
    return response.status, await response.json()


async def test_code_brief_then_override_then_reset(make_client: MakeClient) -> None:
    client = await make_client(catalog=catalog())
    status, body = await call(client, "GET")
    assert status == 200
    assert body["value"]["remember"] == ["Allergies"] and body["origins"]["remember"] == "code"
    assert body["value"]["forget"] == [] and body["origins"]["forget"] == "default"

    status, body = await call(client, "PUT", {"remember": [], "forget": ["Card numbers"]})
    assert status == 200
    assert body["overrides"] == {"remember": [], "forget": ["Card numbers"]}
    assert body["value"]["remember"] == [] and body["origins"]["remember"] == "studio"
    assert body["value"]["forget"] == ["Card numbers"]

    status, body = await call(client, "DELETE", query="?field=remember")
    assert status == 200
    assert body["value"]["remember"] == ["Allergies"] and body["origins"]["remember"] == "code"
    assert body["origins"]["forget"] == "studio"


async def test_limits_name_the_field(make_client: MakeClient) -> None:
    client = await make_client(catalog=catalog())
    at_limit = [f"topic {i}" for i in range(20)]
    status, body = await call(client, "PUT", {"forget": at_limit})
    assert status == 200 and body["value"]["forget"] == at_limit
    for bad, field in [
        ({"forget": [*at_limit, "one more"]}, "forget"),
        ({"remember": ["x" * 201]}, "remember[0]"),
        ({"remember": "Allergies"}, "remember"),
    ]:
        status, body = await call(client, "PUT", bad)
        assert status == 400, bad
        assert body["error"]["code"] == "memory_invalid_request"
        assert body["error"]["field"] == field
    status, body = await call(client, "GET")
    assert body["value"]["forget"] == at_limit  # nothing rejected was written


async def test_activity_names_fields_never_items(
    make_client: MakeClient, pool: asyncpg.Pool
) -> None:
    client = await make_client(catalog=catalog())
    await call(client, "PUT", {"forget": ["Secret diagnosis wording"]})
    rows = await pool.fetch(
        "select fields::text as f from stackbone_platform.memory_settings_activity"
        " where agent_id = 'clinic'"
    )
    assert any("forget" in r["f"] for r in rows)
    assert all("Secret" not in r["f"] for r in rows)


async def test_the_call_snapshot_carries_the_effective_brief(
    make_client: MakeClient, pool: asyncpg.Pool
) -> None:
    client = await make_client(catalog=catalog())
    await call(client, "PUT", {"forget": ["Card numbers"]})
    settings = await load_call_settings(pool, "clinic", CODE)
    assert settings.brief.remember == ("Allergies",)
    assert settings.brief.forget == ("Card numbers",)
