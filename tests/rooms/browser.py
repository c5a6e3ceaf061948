"""Headless Chromium driven over the DevTools protocol, with no driver package.

Debian's `chromium` is started with a throw-away profile and remote debugging on a free port;
the page is then driven with `Runtime.evaluate` over the DevTools websocket (aiohttp's client).
Tests skip with a clear message when no Chromium binary is installed.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import itertools
import json
import os
import shutil
import signal
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from tests.waiting import BUSY_MACHINE_SECONDS, eventually

CANDIDATES = ("chromium", "chromium-browser", "google-chrome")
WAIT_SECONDS = BUSY_MACHINE_SECONDS
SKIP_REASON = (
    "Chromium is not installed: `apt-get install -y chromium` (or set CHROMIUM to a binary) "
    "to run the test-call page test"
)


BROWSER_REQUIRED = os.environ.get("REQUIRE_BROWSER") == "1"
"""Set by `.ci/run`: a missing browser (or page library) fails the browser tests, never skips."""


def browser_missing(reason: str) -> None:
    """Skip the test for `reason`, or fail it when the browser is required."""
    if BROWSER_REQUIRED:
        pytest.fail(f"REQUIRE_BROWSER=1: {reason}")
    pytest.skip(reason)


def find_chromium() -> str | None:
    if explicit := os.environ.get("CHROMIUM"):
        return explicit if Path(explicit).exists() else None
    return next((path for name in CANDIDATES if (path := shutil.which(name))), None)


class Page:
    """One browser tab: evaluate expressions, wait for conditions."""

    def __init__(self, socket: aiohttp.ClientWebSocketResponse) -> None:
        self._socket = socket
        self._ids = itertools.count(1)

    async def send(self, method: str, **params: Any) -> dict[str, Any]:
        message_id = next(self._ids)
        await self._socket.send_json({"id": message_id, "method": method, "params": params})
        async for message in self._socket:
            data = json.loads(message.data)
            if data.get("id") == message_id:
                if "error" in data:
                    raise RuntimeError(f"{method}: {data['error']}")
                result: dict[str, Any] = data["result"]
                return result
        raise RuntimeError("the DevTools connection closed")

    async def evaluate(self, expression: str) -> Any:
        result = await self.send(
            "Runtime.evaluate", expression=expression, awaitPromise=True, returnByValue=True
        )
        if "exceptionDetails" in result:
            raise RuntimeError(f"page error: {result['exceptionDetails']}")
        return result["result"].get("value")

    async def goto(self, url: str, ready: str = "window.testCallPage") -> None:
        """Open `url` and wait until the page's script has set `{ready}.ready`."""
        await self.send("Page.navigate", url=url)
        await self.wait_for(f"{ready} && {ready}.ready === true")

    async def screenshot(self, width: int = 1100, height: int = 1400) -> bytes:
        """A PNG of the page at the given viewport size."""
        await self.send(
            "Emulation.setDeviceMetricsOverride",
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=False,
        )
        shot = await self.send("Page.captureScreenshot", format="png", captureBeyondViewport=True)
        return base64.b64decode(shot["data"])

    async def wait_for(self, expression: str) -> Any:
        """Poll until `expression` is truthy (at most WAIT_SECONDS); its value is returned."""
        try:
            async with asyncio.timeout(WAIT_SECONDS):
                while True:  # the page gives no event to wait on: poll it
                    if value := await self._try(expression):
                        return value
                    await asyncio.sleep(0.1)
        except TimeoutError:
            raise TimeoutError(f"timed out waiting for: {expression}") from None

    async def _try(self, expression: str) -> Any:
        try:
            return await self.evaluate(expression)
        except RuntimeError:  # the page is still navigating
            return None


async def _debugger_port(profile: Path, process: asyncio.subprocess.Process) -> int:
    marker = profile / "DevToolsActivePort"

    async def written() -> int | None:
        if process.returncode is not None:
            raise RuntimeError("chromium exited before opening its DevTools port")
        text = marker.read_text().split() if marker.exists() else []
        return int(text[0]) if text else None

    port: int = await eventually(written, "chromium's DevTools port")
    return port


@asynccontextmanager
async def open_page(binary: str) -> AsyncIterator[Page]:
    """A fresh headless Chromium with one blank tab, closed afterwards."""
    with tempfile.TemporaryDirectory(
        prefix="test-call-page-", ignore_cleanup_errors=True
    ) as profile:
        process = await asyncio.create_subprocess_exec(
            binary,
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--use-fake-ui-for-media-stream",
            "--use-fake-device-for-media-stream",
            "--remote-debugging-port=0",
            f"--user-data-dir={profile}",
            "about:blank",
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
            start_new_session=True,  # its helper processes share the group we end below
        )
        try:
            port = await _debugger_port(Path(profile), process)
            async with aiohttp.ClientSession() as session:
                async with session.get(f"http://127.0.0.1:{port}/json/list") as response:
                    targets = await response.json()
                tab = next(t for t in targets if t["type"] == "page")
                async with session.ws_connect(tab["webSocketDebuggerUrl"], max_msg_size=0) as ws:
                    yield Page(ws)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
            await process.wait()
