"""Every route that reads a JSON body refuses another `Content-Type`, or none, with one 415 before
reading it (`worker.http.server.request_body.require_json`); the OpenAPI document says so."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.api.conftest import auth
from tests.web_clients import Client
from worker.http.routes.openapi import document
from worker.http.web import PAGES, ROUTES

JSON_ROUTES = [
    (method.upper(), path)
    for path, operations in document(ROUTES, PAGES)["paths"].items()
    for method, operation in operations.items()
    if "application/json" in operation.get("requestBody", {}).get("content", {})
]
SETTINGS = "/api/memory/settings/support"


def concrete(path: str) -> str:
    return (
        path.replace("{agentId}", "support")
        .replace("{namespace}", "help")
        .replace("{decisionId}", "00000000-0000-4000-8000-000000000000")
    )


async def test_the_document_lists_every_json_route_with_its_415(client: Client) -> None:
    served = await (await client.get("/api/openapi.json")).json()
    assert len(JSON_ROUTES) >= 12  # settings, customers, search, extraction, voice, chat, docs
    for method, path in JSON_ROUTES:
        assert "415" in served["paths"][path][method.lower()]["responses"], (method, path)


@pytest.mark.parametrize(("method", "path"), JSON_ROUTES, ids=[f"{m} {p}" for m, p in JSON_ROUTES])
@pytest.mark.parametrize(
    "content_type", ["text/plain", None, "application/x-www-form-urlencoded", "application/jsonx"]
)
async def test_a_json_route_with_another_type_is_415(
    whole_app: Client, method: str, path: str, content_type: str | None
) -> None:
    headers = auth() | ({} if content_type is None else {"Content-Type": content_type})
    body = json.dumps({"read": True}).encode()
    response = await whole_app.request(method, concrete(path), data=body, headers=headers)
    answer: Any = await response.json()
    error = answer.get("error", {})
    assert response.status == 415, answer
    assert (error["code"], error["field"]) == ("unsupported_media_type", "Content-Type")
    assert "must be application/json" in error["message"]


async def test_a_settings_put_as_text_changes_nothing(client: Client) -> None:
    before = await (await client.get(SETTINGS, headers=auth())).json()
    for content_type in ("text/plain", None):
        headers = auth() | ({} if content_type is None else {"Content-Type": content_type})
        response = await client.put(SETTINGS, data=b'{"read": false}', headers=headers)
        assert response.status == 415
    assert await (await client.get(SETTINGS, headers=auth())).json() == before
    typed = {"Content-Type": "application/json; charset=utf-8"}
    ok = await client.put(SETTINGS, data=b'{"read": false}', headers=auth() | typed)
    assert ok.status == 200
