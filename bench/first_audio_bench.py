"""First-audio benchmark: from the start of a reply to its first audio, by how the TTS is used.

A real AgentSession (fake models and audio, `testkit`) answers one turn with a reply of two
sentences, streamed by the fake LLM word by word at a speaking model's pace. The TTS is a
streaming fake with a provider's first-byte latency (`testkit.fake_streaming`), used three ways:

- plain: the streaming TTS as it is, no timestamps (memory cannot prove a cut reply's prefix);
- wrapped: the same TTS through `measurable()`: sentence by sentence, so the first audio waits
  for the model to finish the first sentence;
- timestamped: the TTS with word timestamps on, through `measurable()`, which returns it
  untouched: still streaming, and every cut reply measurable.

"Reply start" is the `generate_reply` call; "first audio" is the agent state turning
`speaking` (the first frame reached the speaker). Rounds are interleaved; medians and their
ratios to plain are printed in one run. Usage: python -m bench.first_audio_bench [--rounds N]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import statistics
import time
from collections.abc import Callable
from typing import Any

import structlog
from livekit.agents import Agent, tts

from testkit.fake_devices import fake_session, wait_for_state, wire
from testkit.fake_models import FakeLLM
from testkit.fake_streaming import FakeStreamingTTS
from transcript.sentences import measurable

REPLY = (
    "Light layers are best for Lisbon in May, with a thin jacket for the evenings by the river."
    " Bring comfortable shoes for the hills."
)
WORD_DELAY = 0.04  # about 25 words a second from the model
FIRST_BYTE = 0.15  # the TTS provider's first-byte latency

VARIANTS: dict[str, Callable[[], tts.TTS[Any]]] = {
    "plain": lambda: FakeStreamingTTS(first_byte=FIRST_BYTE),
    "wrapped": lambda: measurable(FakeStreamingTTS(first_byte=FIRST_BYTE)),
    "timestamped": lambda: measurable(FakeStreamingTTS(first_byte=FIRST_BYTE, aligned=True)),
}


async def first_audio(model: tts.TTS[Any]) -> float:
    """Seconds from one reply's start to its first audio frame."""
    session = fake_session(llm_model=FakeLLM([REPLY], word_delay=WORD_DELAY), tts_model=model)
    devices = wire(session)
    await session.start(agent=Agent(instructions="You help travellers."))
    try:
        started = time.monotonic()
        session.generate_reply(user_input="What should I pack for Lisbon?")
        await wait_for_state(session, "speaking", within=10)
        return time.monotonic() - started
    finally:
        await session.aclose()
        await devices.aclose()


async def run(rounds: int) -> dict[str, float]:
    seconds: dict[str, list[float]] = {name: [] for name in VARIANTS}
    for _ in range(rounds):
        for name, build in VARIANTS.items():
            seconds[name].append(await first_audio(build()))
    return {name: statistics.median(values) for name, values in seconds.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    logging.disable(logging.WARNING)
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.ERROR))
    medians = asyncio.run(run(args.rounds))
    plain = medians["plain"]
    report = {
        name: {"median_ms": round(value * 1000), "ratio_to_plain": round(value / plain, 2)}
        for name, value in medians.items()
    }
    print(json.dumps({"first_audio": report, "rounds": args.rounds}, indent=2))


if __name__ == "__main__":
    main()
