"""The start of one call: who is on the line, their identity, the memory plan and the deadline.

Decided once, when the caller is on the line, from plain values (`start_call`), then passed down
whole: the recall, the transcript, the save and the turn passes all read it, and nothing below
asks for it again. The phone number goes one way only: from the SIP participant (`sip.caller`)
through the identity (`lifecycle.identity`) into the plan's user id, which recall and save use.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import datetime

from infra.deadline import Deadline
from lifecycle.identity import Identity, Offered, identity_key
from lifecycle.plan import MemoryPlan, plan_memory
from lifecycle.recall import RecallOutcome
from memory.settings import CallSettings
from sip.caller import Caller


@dataclass(frozen=True, slots=True)
class CallStart:
    """Everything fixed when the caller is on the line that the rest of the call needs."""

    caller: Caller | None  # None: nobody to read (a test harness without a participant)
    identity: Identity
    plan: MemoryPlan
    deadline: Deadline  # the pre-greeting deadline; recall runs inside it
    started_at: datetime
    run_id: str  # the LiveKit job id
    recalled: RecallOutcome | None = None  # read with the settings; None: recall runs later
    prompt: str | None = None  # the agent's published prompt in the snapshot (None: its own)


def start_call(
    agent_id: str,
    settings: CallSettings | None,
    on_the_line: tuple[Caller | None, Offered],
    *,
    deadline: Deadline,
    started_at: datetime,
    run_id: str,
    late: str | None = None,
) -> CallStart:
    """The call's start from the settings snapshot (None: unreadable or `late`) and the caller
    with the identities they offer (decided once, `lifecycle.identity.offer`): the plan takes
    the one under the snapshot's bound key.

    `late` is the reason code of a pre-greeting step still running at the deadline: memory is
    then off for the call, and the plan says why.
    """
    caller, offered = on_the_line
    identity = offered.under(identity_key(settings))
    plan = plan_memory(agent_id, settings, identity)
    if late is not None:
        plan = dataclasses.replace(plan, reason=late)
    prompt = None if settings is None else settings.prompt
    return CallStart(caller, identity, plan, deadline, started_at, run_id, prompt=prompt)
