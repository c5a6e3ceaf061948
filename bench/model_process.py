"""A model provider in its own process for the voice benchmark: every extraction request is
answered with the same small answer after a fixed delay, as a remote provider would, without
sharing the benchmark's event loop. Prints its URL on the first line of stdout.

Usage: python -m bench.model_process DELAY_SECONDS ANSWER_JSON
"""

from __future__ import annotations

import asyncio
import sys

from tests.model_server import ModelServer, Reply


class EndlessModel(ModelServer):
    """Answers every request with `answer` after `delay` seconds."""

    def __init__(self, answer: str, delay: float) -> None:
        super().__init__()
        self._reply = Reply(content=answer, delay=delay)

    def refill(self) -> None:
        while len(self.replies) < 4:
            self.replies.append(self._reply)


async def main(delay: float, answer: str) -> None:
    model = EndlessModel(answer, delay)
    model.refill()
    print(await model.start(), flush=True)
    while True:
        await asyncio.sleep(0.05)
        model.refill()
        model.requests.clear()


if __name__ == "__main__":
    asyncio.run(main(float(sys.argv[1]), sys.argv[2]))
