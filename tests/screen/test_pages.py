"""The screen's files and the index page over HTTP: no key needed, a strict policy, no data."""

from __future__ import annotations

import re

from tests.rooms.browser import Page
from tests.screen.conftest import KEYS, Client, auth
from tests.screen.screen import click, sign_in, wait_text
from worker.http.console.screen import FILES as SCREEN_FILES

FILES = {
    "/memory/": "text/html",
    "/memory/screen.js": "application/javascript",
    "/memory/screen.css": "text/css",
    "/": "text/html",
    **{
        f"/memory/{name}": "text/css" if name.endswith(".css") else "application/javascript"
        for name in SCREEN_FILES
    },
}
POLICY = {
    "default-src": ["'none'"],
    "script-src": ["'self'"],
    "style-src": ["'self'"],
    "img-src": ["'self'"],
    "connect-src": ["'self'"],
    "frame-ancestors": ["'none'"],
    "base-uri": ["'none'"],
    "form-action": ["'none'"],
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
    assert re.findall(r"<script[^>]*>", screen) == ['<script type="module" src="screen.js">']


async def test_the_screen_policy_is_exactly_the_strict_one(client: Client) -> None:
    """Scripts from this origin only (no inline, no eval, no other host), connections to this
    origin only: a script injected into the page can neither run nor send the key away."""
    response = await client.get("/memory/")
    policy = response.headers["Content-Security-Policy"]
    directives = {d.split()[0]: d.split()[1:] for d in policy.split("; ")}
    assert directives == POLICY
    modules = re.findall(
        r'from "\./([a-z]+\.js)"', await (await client.get("/memory/screen.js")).text()
    )
    assert modules and set(modules) <= set(SCREEN_FILES)  # every module the entry imports is served


async def test_injected_inline_script_does_not_run(page: Page, client: Client) -> None:
    await sign_in(page, client, "support")
    ran = await page.evaluate(
        "new Promise(resolve => {"
        " document.addEventListener('securitypolicyviolation', e => resolve(e.violatedDirective));"
        " const s = document.createElement('script'); s.textContent = 'window.injected = 1;';"
        " document.body.append(s); setTimeout(() => resolve('no violation'), 2000); })"
    )
    assert ran.startswith("script-src"), ran
    assert await page.evaluate("window.injected === undefined")


async def test_the_key_is_kept_for_the_tab_and_signing_out_forgets_it(
    page: Page, client: Client
) -> None:
    await sign_in(page, client, "support")
    kept = await page.evaluate("Object.values(sessionStorage)")
    assert kept == [KEYS["operator"][0]]
    assert await page.evaluate("localStorage.length + document.cookie.length") == 0
    note = await page.evaluate("document.getElementById('signin').textContent")
    assert "session storage only" in note and "never written to local storage" in note
    await page.goto(str(client.make_url("/memory/")), ready="window.memoryScreen")  # a reload
    await wait_text(page, "status", "agent(s)")  # signed in again without typing the key
    assert await page.evaluate("document.getElementById('agent').options.length") == 3
    assert await page.evaluate("document.getElementById('signin').hidden")
    await click(page, "sign-out")
    await wait_text(page, "status", "Signed out")
    assert await page.evaluate("sessionStorage.length") == 0
    assert await page.evaluate("document.getElementById('agent').options.length") == 0
    assert await page.evaluate("document.getElementById('signed-in').hidden")
    await page.goto(str(client.make_url("/memory/")), ready="window.memoryScreen")
    assert "sign in" in await page.evaluate("document.getElementById('status').textContent")


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
