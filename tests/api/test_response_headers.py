"""Headers on every answer: no cached or sniffed JSON, no version in `Server`, and a locked-down
test-call page (scripts from this origin only, never framed, no referrer)."""

from __future__ import annotations

import pytest

from tests.api.conftest import auth
from tests.web_clients import Client


def directives(policy: str) -> dict[str, list[str]]:
    parsed: dict[str, list[str]] = {}
    for part in policy.split(";"):
        name, *values = part.split()
        assert name not in parsed, f"{name} given twice"
        parsed[name] = values
    return parsed


@pytest.mark.parametrize(
    ("method", "path", "key", "status"),
    [
        ("GET", "/healthz", None, 200),
        ("GET", "/api/memory/settings/support", "admin", 200),
        ("GET", "/api/memory/settings/support", None, 401),
        ("GET", "/api/memory/settings/nobody", "admin", 404),
        ("GET", "/no/such/route", None, 404),
        ("POST", "/healthz", None, 405),
    ],
)
async def test_json_answers_are_not_cached_or_sniffed(
    client: Client, method: str, path: str, key: str | None, status: int
) -> None:
    response = await client.request(method, path, headers=auth(key) if key else {})
    assert response.status == status
    assert response.content_type == "application/json"
    assert response.headers["Cache-Control"] == "no-store"
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["Server"] == "caller-memory"


@pytest.mark.parametrize("path", ["/voice/", "/voice/page.js", "/voice/page.css"])
async def test_page_files_carry_the_page_policy(client: Client, path: str) -> None:
    response = await client.get(path)
    assert response.status == 200
    policy = directives(response.headers["Content-Security-Policy"])
    assert policy["script-src"] == ["'self'"]
    assert policy["default-src"] == ["'none'"]
    assert policy["frame-ancestors"] == ["'none'"]
    assert not any("unsafe" in value for values in policy.values() for value in values)
    assert response.headers["Referrer-Policy"] == "no-referrer"
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert "aiohttp" not in response.headers["Server"]


async def test_the_page_has_no_inline_script_or_style(client: Client) -> None:
    """What the policy forbids must not be needed: every script and style is a file."""
    html = await (await client.get("/voice/")).text()
    assert "<style" not in html and " style=" not in html
    assert html.count("<script") == html.count("<script src=")
    assert '<link rel="stylesheet" href="page.css">' in html
    assert (await client.get("/voice/page.css")).content_type == "text/css"
