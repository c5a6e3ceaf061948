"""A first `make run` from a fresh data directory: the printed address opens the console signed
in with a local key (created once, mode 0600, never printed or logged again)."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import stat
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from tests.rooms.browser import Page
from tests.screen.screen import wait_text
from tests.web.test_web_process import free_port

pytestmark = pytest.mark.processes  # starts the service's processes

ROOT = Path(__file__).resolve().parents[2]
CONSOLE = re.compile(r"^Console: (http://\S+)")
# what `make run` sees on a fresh clone: no keys, no database, no LiveKit, no bind address
CLEARED = ("MEMORY_API_KEYS", "DATABASE_URL", "WEB_HOST", "PORT", "MEMORY_PGDATA")
BASE_ENV = {
    k: v for k, v in os.environ.items() if k not in CLEARED and not k.startswith("LIVEKIT_")
}


@asynccontextmanager
async def make_run(data_dir: Path, port: int) -> AsyncIterator[tuple[str, list[str]]]:
    """`scripts/run-local` as `make run` starts it; yields its `Console:` line's address and
    a list that fills with everything it wrote on stdout and stderr."""
    process = await asyncio.create_subprocess_exec(
        str(ROOT / "scripts" / "run-local"),
        env={**BASE_ENV, "VENV": str(Path(sys.executable).parent.parent)}
        | {"MEMORY_PGDATA": str(data_dir), "PORT": str(port)},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,
    )
    assert process.stdout is not None and process.stderr is not None
    output: list[str] = []
    readers = [asyncio.create_task(_collect(s, output)) for s in (process.stdout, process.stderr)]
    try:
        async with asyncio.timeout(90):  # a fresh data directory: initdb and every migration
            while not (found := [m[1] for line in output if (m := CONSOLE.match(line))]):
                if process.returncode is not None:
                    raise AssertionError("make run stopped:\n" + "".join(output))
                await asyncio.sleep(0.05)
        yield found[0], output
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        await asyncio.wait_for(process.wait(), 30)
        await asyncio.gather(*readers)


async def _collect(stream: asyncio.StreamReader, into: list[str]) -> None:
    while line := await stream.readline():
        into.append(line.decode())


@pytest.mark.skipif(
    (ROOT / ".env.local").exists(), reason="a .env.local in the checkout configures `make run`"
)
async def test_make_run_prints_an_address_that_opens_the_console_signed_in(
    page: Page, pgdata_dir: Path
) -> None:
    data_dir, port = pgdata_dir, free_port()
    async with make_run(data_dir, port) as (address, output):
        secret = address.partition("#key=")[2]
        assert address.startswith(f"http://127.0.0.1:{port}/memory/#key=") and secret
        key_file = data_dir / "console-key"
        assert key_file.read_text().strip() == secret
        assert stat.S_IMODE(key_file.stat().st_mode) == 0o600

        await page.goto(address, ready="window.memoryScreen")
        await wait_text(page, "status", "agent(s)")  # signed in: the agents loaded
        assert await page.evaluate("location.href") == f"http://127.0.0.1:{port}/memory/"
        assert await page.evaluate("sessionStorage.getItem('memoryScreen.apiKey')") == secret
    assert "".join(output).count(secret) == 1  # the one print; no log line carries it

    async with make_run(data_dir, port) as (again, output):  # the next run: the same key
        assert again == f"http://127.0.0.1:{port}/memory/"
        assert key_file.read_text().strip() == secret
    assert secret not in "".join(output)
