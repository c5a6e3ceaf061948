"""A model provider in its own process for the voice benchmark: every extraction request is
answered with the same small answer after a fixed delay, as a remote provider would, without
sharing the benchmark's event loop. Prints its URL on the first line of stdout.

Usage: python -m bench.model_process DELAY_SECONDS ANSWER_JSON
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator

from aiohttp import web

from testkit.model_server import ModelServer, Reply


class EndlessModel(ModelServer):
    """Answers every request with `answer` after `delay` seconds."""

    def __init__(self, answer: str, delay: float) -> None:
        super().__init__()
        self._reply = Reply(content=answer, delay=delay)

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        self.replies.append(self._reply)  # never runs dry, however fast the requests come
        return await super()._handle(request)


@contextlib.asynccontextmanager
async def model_process(delay: float, answer: str) -> AsyncIterator[str]:
    """This module run as a child process for the block; yields its base URL."""
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bench.model_process",
        str(delay),
        answer,
        stdout=asyncio.subprocess.PIPE,
    )
    try:
        assert child.stdout is not None
        yield (await child.stdout.readline()).decode().strip()
    finally:
        child.terminate()
        await child.wait()


async def main(delay: float, answer: str) -> None:
    model = EndlessModel(answer, delay)
    print(await model.start(), flush=True)
    while True:
        await asyncio.sleep(0.05)
        model.requests.clear()
        model.headers.clear()
        model.received_at.clear()


if __name__ == "__main__":
    asyncio.run(main(float(sys.argv[1]), sys.argv[2]))
