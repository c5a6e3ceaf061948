"""Who is on the line once the room is joined: the caller who dialed in, or the callee we dial.

An outbound job (its dispatch metadata names a number and trunk) dials before anything else
and only greets once the callee answered. A dial that fails (busy, no answer, rejected, a
LiveKit error) ends the job cleanly: no greeting, and so nothing heard and no save.
"""

from __future__ import annotations

import structlog
from livekit.agents import JobContext

from sip.caller import Caller, participant_facts, read_caller
from sip.dialing import CALLEE_IDENTITY, dial
from sip.job_metadata import JobMetadata

log = structlog.get_logger(__name__)


async def connect_caller(ctx: JobContext, metadata: JobMetadata) -> Caller | None:
    """The caller to serve, or None when an outbound dial failed and the job was ended."""
    plan = metadata.outbound
    if plan is None:
        return read_caller(participant_facts(await ctx.wait_for_participant()))
    result = await dial(ctx.api, room=ctx.room.name, number=plan.number, trunk_id=plan.trunk_id)
    if result.failed:
        ctx.shutdown(reason=f"dial_{result.outcome.value}")
        return None
    callee = await ctx.wait_for_participant(identity=result.participant_identity or CALLEE_IDENTITY)
    return read_caller(participant_facts(callee))
