"""The test-call page's files as the web process serves them, without a browser."""

from __future__ import annotations

from pathlib import Path

from aiohttp import web

from tests.web_clients import Client, MakeClient
from worker.http.console import call_page


async def test_page_and_script_are_served_without_a_key(client: Client) -> None:
    """The page is static: no key needed, and it loads the library and its script."""
    page = await client.get("/voice/")
    assert page.status == 200
    assert page.content_type == "text/html"
    html = await page.text()
    assert '<script src="livekit-client.umd.js"></script>' in html
    assert '<script src="page.js"></script>' in html
    script = await client.get("/voice/page.js")
    assert (script.status, script.content_type) == (200, "application/javascript")
    assert "/api/voice/rooms" in await script.text()


async def test_bare_path_redirects(client: Client) -> None:
    response = await client.get("/voice", allow_redirects=False)
    assert (response.status, response.headers["Location"]) == (302, "/voice/")


async def test_missing_library_answers_an_install_hint(
    make_client: MakeClient, tmp_path: Path
) -> None:
    """Without node_modules the library route is a script naming the install command."""

    def no_library(app: web.Application) -> None:
        app[call_page.CLIENT_JS_PATH] = tmp_path / "missing.js"

    client = await make_client(app_hook=no_library)
    response = await client.get("/voice/livekit-client.umd.js")
    assert response.status == 200
    assert response.content_type == "application/javascript"
    assert (await response.text()).startswith("window.LIVEKIT_CLIENT_MISSING = ")
    assert "npm ci" in await response.text()


async def test_installed_library_is_served_from_node_modules(
    make_client: MakeClient, tmp_path: Path
) -> None:
    library = tmp_path / "livekit-client.umd.js"
    library.write_text("window.LivekitClient = {};")

    def local_library(app: web.Application) -> None:
        app[call_page.CLIENT_JS_PATH] = library

    client = await make_client(app_hook=local_library)
    response = await client.get("/voice/livekit-client.umd.js")
    assert await response.text() == "window.LivekitClient = {};"
