"""The start of a chat turn on the web process: the agent's settings and, behind a session
header, its session claimed and its thread read, all in one statement when it can.

The session's address depends on the agent's bound identity key, which the same statement
reads. The key is predicted (the key this process saw bound before, else the one the agent
declares in code: a bound key never changes) and the claim happens only if the prediction
holds. A wrong prediction (a key bound meanwhile, or set in the studio and not yet seen) costs
two more statements: the claim and the thread under the right address.
"""

from __future__ import annotations

import asyncpg
from aiohttp import web

from chat import OpenedTurn, address_of, open_turn, release, thread
from chat.session_claim import claim_turn
from memory.store import load_call_settings
from worker.agent_directory import AgentEntry
from worker.http.server.context import bounded
from worker.http.wires.openai_body import SessionHeader

BOUND_KEYS = web.AppKey("chat_bound_keys", dict[str, str])
"""Agent id -> the identity key this process saw bound (bound keys are fixed forever)."""


async def open_wire_turn(
    request: web.Request,
    agent: AgentEntry,
    header: SessionHeader | None,
    identities: dict[str, str],
    *,
    pool: asyncpg.Pool,
    lease_seconds: float,
) -> OpenedTurn:
    """The turn's settings, its claim and thread (`SessionBusy` when another turn holds it)."""
    if header is None:
        return OpenedTurn(
            await bounded(request, load_call_settings(pool, agent.name, agent.memory))
        )
    keys = request.app[BOUND_KEYS]
    predicted = keys.get(agent.name, agent.memory.identity_key)
    address = address_of(header.kind, agent.name, header.key, predicted, identities)
    opened, bound = await bounded(
        request, open_turn(pool, address, agent.memory, predicted, lease_seconds)
    )
    if bound is not None:
        keys[agent.name] = bound
    if bound == predicted:
        return opened
    address = address_of(header.kind, agent.name, header.key, bound, identities)
    held, progress = await bounded(request, claim_turn(pool, address, lease_seconds))
    try:
        earlier = (
            await bounded(request, thread(pool, address.id)) if header.kind == "session" else []
        )
    except BaseException:
        await release(pool, held)
        raise
    return OpenedTurn(opened.settings, held, earlier, progress)
