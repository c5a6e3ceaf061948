"""The CopilotKit example (`examples/copilotkit/`) for a test: its node runtime as a process in
front of the app's AG-UI route, and the chat page it serves, driven in headless Chromium.

The example's packages are heavy and not part of `make setup`: `make test-copilotkit` installs
them (`npm ci` in the example) and builds the page. Without them the tests skip; under
`REQUIRE_COPILOTKIT=1` (the make target, so CI) they fail instead."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.rooms.browser import Page
from tests.waiting import BUSY_MACHINE_SECONDS

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "copilotkit"
REQUIRED = os.environ.get("REQUIRE_COPILOTKIT") == "1"
MISSING = (
    "the CopilotKit example is not installed: `make test-copilotkit` installs it "
    "(npm ci in examples/copilotkit) and runs this test"
)


def example_missing(reason: str = MISSING) -> None:
    """Skip for `reason`, or fail under REQUIRE_COPILOTKIT=1."""
    if REQUIRED:
        pytest.fail(f"REQUIRE_COPILOTKIT=1: {reason}")
    pytest.skip(reason)


def node_binary() -> str:
    """node, with the example's packages installed and its page built (else skip or fail)."""
    node = shutil.which("node")
    if node is None or not (EXAMPLE / "node_modules" / "@copilotkit" / "runtime").is_dir():
        example_missing()
    assert node is not None
    if not (EXAMPLE / "dist" / "app.js").exists():
        example_missing("the page is not built: `npm run build` in examples/copilotkit")
    return node


class Runtime:
    """The example's runtime (`runtime.mjs`) as a process, started and killed by the test."""

    def __init__(self, node: str, service: str, key: str, agent: str) -> None:
        self._env = {
            "PATH": str(Path(node).parent),
            "AGUI_URL": service,
            "AGUI_KEY": key,
            "AGENT_ID": agent,
            "COPILOTKIT_TELEMETRY_DISABLED": "true",
            "DO_NOT_TRACK": "1",
        }
        self._node = node
        self._process: asyncio.subprocess.Process | None = None
        self.port = 0

    async def start(self) -> int:
        """Start it (on its last port when it ran before); its port once it listens."""
        env = {**self._env, "PORT": str(self.port)}
        self._process = await asyncio.create_subprocess_exec(
            self._node,
            str(EXAMPLE / "runtime.mjs"),
            cwd=EXAMPLE,
            env=env,
            stdout=asyncio.subprocess.PIPE,
            start_new_session=True,
        )
        assert self._process.stdout is not None
        line = await asyncio.wait_for(self._process.stdout.readline(), BUSY_MACHINE_SECONDS)
        assert line, "the runtime exited before it listened"
        self.port = int(json.loads(line)["port"])
        return self.port

    async def kill(self) -> None:
        """SIGKILL, as a crash or a lost replica: nothing of it is asked to save anything."""
        if self._process is not None and self._process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self._process.pid, signal.SIGKILL)
            await self._process.wait()
        self._process = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"


@contextlib.asynccontextmanager
async def running(node: str, service: str, key: str, agent: str) -> AsyncIterator[Runtime]:
    runtime = Runtime(node, service, key, agent)
    await runtime.start()
    try:
        yield runtime
    finally:
        await runtime.kill()


READY = "window.copilotkitPage"
TEXTAREA = "[data-testid=copilot-chat-textarea]"
IDLE = (
    "document.querySelector('[data-testid=copilot-chat]').dataset.copilotRunning === 'false'"
    " && !document.querySelector('[data-testid=copilot-send-button]').disabled"
)


async def open_chat(page: Page, url: str) -> None:
    """Load the page and wait until the chat takes input."""
    await page.goto(url, ready=READY)
    await page.wait_for(f"!!document.querySelector('{TEXTAREA}')")


async def reload(page: Page) -> None:
    """Reload the page as a person would (same address, so the same thread)."""
    await page.evaluate(f"{READY}.ready = false")
    await page.send("Page.reload", ignoreCache=True)
    await page.wait_for(f"{READY} && {READY}.ready === true")
    await page.wait_for(f"!!document.querySelector('{TEXTAREA}')")


async def say(page: Page, text: str) -> None:
    """Type `text` into the chat's box and send it with Enter, as keystrokes."""
    await page.evaluate(f"document.querySelector('{TEXTAREA}').focus()")
    await page.send("Input.insertText", text=text)
    await page.wait_for(f"document.querySelector('{TEXTAREA}').value === {json.dumps(text)}")
    await page.wait_for(IDLE)  # the chat rendered the text, and no run (or restore) is going on
    for kind in ("keyDown", "keyUp"):
        await page.send(
            "Input.dispatchKeyEvent",
            type=kind,
            key="Enter",
            code="Enter",
            windowsVirtualKeyCode=13,
            text="\r" if kind == "keyDown" else "",
        )


async def shown(page: Page, text: str) -> None:
    """Wait until the page's text holds `text`."""
    await page.wait_for(f"document.body.innerText.includes({json.dumps(text)})")


async def approval(page: Page) -> str:
    """Wait for the approval card `useInterrupt` renders; the held call's toolCallId."""
    card = "document.querySelector('[data-testid=approval]')"
    found: str = await page.wait_for(f"{card} && {card}.dataset.toolCall")
    return found


async def approve(page: Page) -> None:
    await page.evaluate(
        "[...document.querySelectorAll('[data-testid=approval] button')]"
        ".find((b) => b.textContent === 'Approve').click()"
    )
    await page.wait_for("!document.querySelector('[data-testid=approval]')")
