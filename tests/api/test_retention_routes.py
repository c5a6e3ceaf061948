"""An agent's retention over HTTP: read, change some kinds, the days' limits, the activity log."""

from __future__ import annotations

from typing import Any

import pytest

from memory.settings import MAX_RETENTION_DAYS, MIN_RETENTION_DAYS
from tests.api.conftest import auth
from tests.web_clients import Client

URL = "/api/memory/settings/{}/retention"
KEEP = {"calls": None, "sessions": None, "ops": None, "reads": None, "journals": None}


async def put(client: Client, body: object, key: str = "admin") -> tuple[int, Any]:
    response = await client.put(URL.format("support"), json=body, headers=auth(key))
    return response.status, await response.json()


async def test_every_kind_is_kept_until_deleted_before_anything_is_set(client: Client) -> None:
    response = await client.get(URL.format("support"), headers=auth("config-reader"))
    assert response.status == 200
    assert await response.json() == {"agentId": "support", **KEEP}


async def test_a_put_changes_the_kinds_it_names_and_keeps_the_others(client: Client) -> None:
    assert await put(client, {"calls": 90, "ops": 30}) == (
        200,
        {"agentId": "support", **KEEP, "calls": 90, "ops": 30},
    )
    status, body = await put(client, {"ops": None, "journals": 7})
    assert status == 200
    assert body == {"agentId": "support", **KEEP, "calls": 90, "journals": 7}
    read = await client.get(URL.format("support"), headers=auth("config-reader"))
    assert await read.json() == body
    other = await client.get(URL.format("sales"), headers=auth("config-reader"))
    assert await other.json() == {"agentId": "sales", **KEEP}


async def test_the_activity_log_names_the_kinds_never_the_days(client: Client) -> None:
    await put(client, {"calls": 90, "sessions": 14})
    response = await client.get("/api/memory/activity?agentId=support", headers=auth("admin"))
    [entry, *_] = (await response.json())["entries"]
    assert entry["actor"] == "admin" and entry["action"] == "save"
    assert entry["fields"] == ["retention.calls", "retention.sessions"]
    written = {k: v for k, v in entry.items() if k != "at"}  # a timestamp may hold "90"
    assert "90" not in str(written) and "14" not in str(written)


@pytest.mark.parametrize("days", [MIN_RETENTION_DAYS, MAX_RETENTION_DAYS, None])
async def test_days_at_the_limits_are_kept(client: Client, days: int | None) -> None:
    for kind in KEEP:
        status, body = await put(client, {kind: days})
        assert status == 200 and body[kind] == days


@pytest.mark.parametrize(
    "value", [MIN_RETENTION_DAYS - 1, MAX_RETENTION_DAYS + 1, -5, 30.0, "30", True, [30]]
)
async def test_days_past_the_limits_or_not_whole_are_refused_naming_the_kind(
    client: Client, value: object
) -> None:
    for kind in KEEP:
        status, body = await put(client, {kind: value})
        assert status == 400, (kind, value)
        assert body["error"]["message"].startswith(f"{kind}: must be a whole number of days")
        assert body["error"]["field"] == kind
    read = await client.get(URL.format("support"), headers=auth("config-reader"))
    assert await read.json() == {"agentId": "support", **KEEP}  # nothing was written


async def test_unknown_kinds_bodies_and_keys_are_refused(client: Client) -> None:
    status, body = await put(client, {"facts": 30})
    assert status == 400 and body["error"]["message"] == "facts: is not a known field"
    status, body = await put(client, [1])
    assert status == 400 and body["error"]["field"] == "body"
    assert (await put(client, {"calls": 30}, key="config-reader"))[0] == 403
    response = await client.put(URL.format("nobody"), json={"calls": 3}, headers=auth())
    assert response.status == 404
