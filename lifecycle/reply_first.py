"""A reply being generated goes first: a turn pass starts its work when the agent is not thinking.

A pass's own CPU (decoding the facts held, building the prompt, sending the request) runs on
the call's event loop, the one the agent's next reply runs on. An assistant message is committed
exactly when the caller may start the next turn (the reply played out, or was interrupted), so a
pass first lets `SETTLE_SECONDS` go by, in which a reply asked for at that moment starts
generating, and then waits while the agent is thinking (`agent_state == "thinking"`), at most
`WAIT_SECONDS`. Both are small against a pass's model call, which takes seconds.
"""

from __future__ import annotations

import asyncio
from typing import Any

from livekit.agents import AgentSession, AgentStateChangedEvent

SETTLE_SECONDS = 0.05
WAIT_SECONDS = 3.0


async def reply_first(
    session: AgentSession[Any], *, settle: float = SETTLE_SECONDS, within: float = WAIT_SECONDS
) -> None:
    """Return once the agent is not generating a reply (or after `within` seconds)."""
    await asyncio.sleep(settle)
    if session.agent_state != "thinking":
        return
    done = asyncio.Event()

    def on_state(ev: AgentStateChangedEvent) -> None:
        if ev.new_state != "thinking":
            done.set()

    session.on("agent_state_changed", on_state)
    try:
        await asyncio.wait_for(done.wait(), within)
    except TimeoutError:
        pass
    finally:
        session.off("agent_state_changed", on_state)
