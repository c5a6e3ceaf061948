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
import subprocess
import tempfile
from collections.abc import AsyncIterator, Callable
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


_FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--use-fake-ui-for-media-stream",
    "--use-fake-device-for-media-stream",
    "--remote-debugging-port=0",
)


async def _debugger_port(profile: Path, exited: Callable[[], int | None]) -> int:
    marker = profile / "DevToolsActivePort"

    async def written() -> int | None:
        if exited() is not None:
            raise RuntimeError("chromium exited before opening its DevTools port")
        text = marker.read_text().split() if marker.exists() else []
        return int(text[0]) if text else None

    port: int = await eventually(written, "chromium's DevTools port")
    return port


class Chromium:
    """One headless Chromium for a whole test process, started at its first page.

    Each page (`open_page_in`) is a tab in a browser context of its own, Chromium's incognito
    profile: no cookie, storage or cache is shared with another test's page, and the context
    is disposed of with its page. Starting a browser costs seconds of CPU, a context
    milliseconds. A browser that died is started again at the next page.
    """

    def __init__(self, binary: str) -> None:
        self._binary = binary
        self._profile: str | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._port = 0

    async def port(self) -> int:
        """The DevTools port of the running browser (started now when it is not running)."""
        if self._process is None or self._process.poll() is not None:
            self.close()
            profile, process = self._start()
            self._port = await _debugger_port(profile, process.poll)
        return self._port

    def _start(self) -> tuple[Path, subprocess.Popen[bytes]]:
        self._profile = tempfile.mkdtemp(prefix="test-browser-")
        self._process = subprocess.Popen(  # not asyncio's: it outlives each test's event loop
            [self._binary, *_FLAGS, f"--user-data-dir={self._profile}", "about:blank"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # its helper processes share the group `close` ends
        )
        return Path(self._profile), self._process

    def close(self) -> None:
        """End the browser and its helper processes, and remove its profile."""
        if self._process is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self._process.pid, signal.SIGTERM)
            self._process.wait()
            self._process = None
        if self._profile is not None:
            shutil.rmtree(self._profile, ignore_errors=True)
            self._profile = None


@asynccontextmanager
async def open_page_in(chromium: Chromium) -> AsyncIterator[Page]:
    """A blank tab in a fresh browser context of `chromium`, disposed of afterwards."""
    port = await chromium.port()
    async with aiohttp.ClientSession() as session:
        async with session.get(f"http://127.0.0.1:{port}/json/version") as response:
            version = await response.json()
        async with session.ws_connect(version["webSocketDebuggerUrl"], max_msg_size=0) as ws:
            browser = Page(ws)  # the browser's own target: the same request-and-answer
            context = (await browser.send("Target.createBrowserContext"))["browserContextId"]
            try:
                made = await browser.send(
                    "Target.createTarget", url="about:blank", browserContextId=context
                )
                tab = f"ws://127.0.0.1:{port}/devtools/page/{made['targetId']}"
                async with session.ws_connect(tab, max_msg_size=0) as page:
                    yield Page(page)
            finally:
                await browser.send("Target.disposeBrowserContext", browserContextId=context)


@asynccontextmanager
async def open_page(binary: str) -> AsyncIterator[Page]:
    """A fresh headless Chromium with one blank tab, closed afterwards."""
    with tempfile.TemporaryDirectory(
        prefix="test-call-page-", ignore_cleanup_errors=True
    ) as profile:
        process = await asyncio.create_subprocess_exec(
            binary,
            *_FLAGS,
            f"--user-data-dir={profile}",
            "about:blank",
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
            start_new_session=True,  # its helper processes share the group we end below
        )
        try:
            port = await _debugger_port(Path(profile), lambda: process.returncode)
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
