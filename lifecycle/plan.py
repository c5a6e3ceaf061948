"""Whether and how a call uses memory, decided once at room open from plain values.

The settings snapshot and the resolved identity hold for the whole call; a settings change made
during the call applies from the next one.
"""

from __future__ import annotations

from dataclasses import dataclass

from lifecycle.identity import Identity
from memory.settings import NO_BRIEF, Brief, CallSettings


@dataclass(frozen=True, slots=True)
class MemoryPlan:
    """What this call does with memory; `reason` says why memory is off (a code, never a value)."""

    agent_id: str
    user_id: str | None
    read: bool
    save: bool
    instructions: str | None
    reason: str | None = None
    brief: Brief = NO_BRIEF
    time_zone: str | None = None  # the agent's IANA time zone, dating the save's conversation

    @property
    def active(self) -> bool:
        return self.user_id is not None and (self.read or self.save)


def plan_memory(agent_id: str, settings: CallSettings | None, identity: Identity) -> MemoryPlan:
    """Combine the settings snapshot and the identity into the call's memory plan."""
    if settings is None:
        return _off(agent_id, "settings_unavailable")
    if not settings.read and not settings.save:
        return _off(agent_id, "memory_off")
    if settings.binding is None:
        return _off(agent_id, "no_binding")
    if identity.user_id is None:
        return _off(agent_id, str(identity.reason or "identity_missing"))
    return MemoryPlan(
        agent_id=agent_id,
        user_id=identity.user_id,
        read=settings.read,
        save=settings.save,
        instructions=settings.instructions,
        brief=settings.brief,
        time_zone=settings.time_zone,
    )


def _off(agent_id: str, reason: str) -> MemoryPlan:
    return MemoryPlan(agent_id, None, read=False, save=False, instructions=None, reason=reason)
