"""The screen's files and the index page over HTTP: no key needed, a strict policy, no data."""

from __future__ import annotations

from tests.screen.conftest import Client, auth

FILES = {
    "/memory/": "text/html",
    "/memory/screen.js": "application/javascript",
    "/memory/screen.css": "text/css",
    "/": "text/html",
}


async def test_files_are_served_with_a_strict_policy(client: Client) -> None:
    for path, content_type in FILES.items():
        response = await client.get(path)
        assert response.status == 200, path
        assert response.content_type == content_type
        policy = response.headers["Content-Security-Policy"]
        assert "script-src 'self'" in policy and "style-src 'self'" in policy
        assert "'unsafe-inline'" not in policy
        assert response.headers["Cache-Control"] == "no-store"
    screen = await (await client.get("/memory/")).text()
    assert "<script>" not in screen and "style=" not in screen  # nothing inline


async def test_memory_redirects_to_the_screen(client: Client) -> None:
    response = await client.get("/memory", allow_redirects=False)
    assert (response.status, response.headers["Location"]) == (302, "/memory/")


async def test_index_links_to_both_pages_and_the_api_description(client: Client) -> None:
    page = await (await client.get("/")).text()
    for link in ('href="/voice/"', 'href="/memory/"', 'href="/api/openapi.json"'):
        assert link in page


async def test_agent_list_needs_config_read_and_shows_bindings(client: Client) -> None:
    response = await client.get("/api/memory/agents")
    assert response.status == 401
    response = await client.get("/api/memory/agents", headers=auth("config"))
    assert response.status == 200
    agents = (await response.json())["agents"]
    assert [a["agentId"] for a in agents] == ["support", "sales", "billing"]
    assert agents[0]["binding"]["identityKey"] == "phoneNumber"
    assert agents[0]["binding"]["source"] == "code"
    assert agents[1]["binding"] is None
