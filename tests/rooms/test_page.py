"""The test-call page in headless Chromium, up to where it needs a real LiveKit server."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiohttp import web

from sip.job_metadata import parse_job_metadata
from tests.livekit_server import LiveKitServer
from tests.rooms.browser import SKIP_REASON, Page, browser_missing, find_chromium, open_page
from tests.rooms.conftest import KEYS
from tests.web_clients import Client, MakeClient
from worker.http.console import call_page
from worker.voice_settings import VoiceSettings

pytestmark = pytest.mark.processes  # starts processes: not in `make check`

CHROMIUM = find_chromium()


@pytest.fixture(name="page")
async def _page() -> AsyncIterator[Page]:
    if CHROMIUM is None:
        browser_missing(SKIP_REASON)
    assert CHROMIUM is not None
    async with open_page(CHROMIUM) as page:
        yield page


async def _page_client(
    make_client: MakeClient, voice: VoiceSettings, livekit: LiveKitServer
) -> Client:
    # the browser is sent to the stand-in, which speaks no WebRTC signalling: joining fails there
    settings = VoiceSettings(
        url=voice.url,
        api_key=voice.api_key,
        api_secret=voice.api_secret,
        public_url=livekit.url.replace("http://", "ws://"),
        outbound_trunk_id=voice.outbound_trunk_id,
    )
    return await make_client(settings=settings)


async def _fill(page: Page, selector: str, value: str) -> None:
    await page.evaluate(
        f"(() => {{ const e = document.querySelector({json.dumps(selector)});"
        f" e.value = {json.dumps(value)}; e.dispatchEvent(new Event('change')); }})()"
    )


async def _click(page: Page, element_id: str) -> None:
    await page.evaluate(f"document.getElementById({json.dumps(element_id)}).click()")


async def test_call_runs_until_it_needs_livekit(
    page: Page, make_client: MakeClient, voice: VoiceSettings, livekit: LiveKitServer
) -> None:
    """Agents load, identities go out exactly as typed, and a failed join is shown."""
    if not call_page.CLIENT_JS.is_file():
        browser_missing("livekit-client is not installed: run `npm ci` in the repository root")
    client = await _page_client(make_client, voice, livekit)
    await page.goto(str(client.make_url("/voice/")))
    assert await page.evaluate("typeof LivekitClient.Room") == "function"
    assert await page.evaluate("document.getElementById('install').textContent") == ""

    await _fill(page, "#api-key", KEYS["rooms-only"][0])
    await _click(page, "load-agents")
    await page.wait_for("document.getElementById('agent').options.length === 3")
    await _fill(page, "#agent", "crm")
    assert "contact.email" in await page.evaluate(
        "document.getElementById('identity-key').textContent"
    )
    await _fill(page, ".identity-name", "contact.email")
    await _fill(page, ".identity-value", "  Zoë@Example.com\t")
    await _click(page, "start")

    error = await page.wait_for("document.getElementById('error').textContent")
    assert error.startswith("Could not start the call")
    [dispatch] = livekit.calls("AgentDispatchService/CreateDispatch")
    assert dispatch.agent_name == "crm"
    assert parse_job_metadata(dispatch.metadata).identities == {
        "contact.email": "  Zoë@Example.com\t"
    }
    memory = await page.evaluate("document.getElementById('memory').textContent")
    assert memory == "Memory: on, by contact.email."
    assert await page.evaluate("document.getElementById('end').disabled") is True
    assert await page.evaluate("document.getElementById('start').disabled") is False


async def test_api_errors_are_shown(
    page: Page, make_client: MakeClient, voice: VoiceSettings, livekit: LiveKitServer
) -> None:
    """A refused identity map shows the API's rule on the page and dispatches nothing."""
    client = await _page_client(make_client, voice, livekit)
    await page.goto(str(client.make_url("/voice/")))
    await _fill(page, "#api-key", KEYS["rooms-only"][0])
    await _click(page, "load-agents")
    await page.wait_for("document.getElementById('agent').options.length === 3")
    await _fill(page, ".identity-name", "x" * 101)
    await _fill(page, ".identity-value", "v")
    await page.evaluate("document.getElementById('start').disabled = false")
    await _click(page, "start")
    error = await page.wait_for("document.getElementById('error').textContent")
    assert "identity_name_too_long" in error
    assert livekit.recorded == []


async def test_missing_library_says_how_to_install(
    page: Page, make_client: MakeClient, tmp_path: Path
) -> None:
    """Without node_modules the page says to run npm ci, and calls cannot start."""

    def no_library(app: web.Application) -> None:
        app[call_page.CLIENT_JS_PATH] = tmp_path / "missing.js"

    client = await make_client(app_hook=no_library)
    await page.goto(str(client.make_url("/voice/")))
    install = await page.wait_for("document.getElementById('install').textContent")
    assert "npm ci" in install
    await _fill(page, "#api-key", KEYS["rooms-only"][0])
    await _click(page, "load-agents")
    await page.wait_for("document.getElementById('agent').options.length === 3")
    assert await page.evaluate("document.getElementById('start').disabled") is True
