"""An agent's memory settings and the registered agents, as the settings routes answer them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, Self

from memory.settings import SETTING_FIELDS, resolve
from worker.http.server.answers.base import Answer, Timestamp

if TYPE_CHECKING:
    from memory import settings
    from memory.store import StoredSettings
    from worker.agent_directory import AgentEntry

Origin = Literal["studio", "code", "default"]


class Binding(Answer):
    identity_key: str
    source: Literal["code", "studio"]
    fixed_at: Timestamp | None

    @classmethod
    def of(cls, binding: settings.Binding | None) -> Self | None:
        if binding is None:
            return None
        return cls(
            identity_key=binding.identity_key, source=binding.source, fixed_at=binding.fixed_at
        )


class SettingValues(Answer):
    read: bool
    save: bool
    instructions: str | None
    remember: list[str]
    forget: list[str]
    time_zone: str | None


class Overrides(Answer):
    """Only the fields saved through the API are written."""

    read: bool | None = None
    save: bool | None = None
    instructions: str | None = None
    remember: list[str] | None = None
    forget: list[str] | None = None
    time_zone: str | None = None


class Origins(Answer):
    read: Origin
    save: Origin
    instructions: Origin
    remember: Origin
    forget: Origin
    time_zone: Origin


class Settings(Answer):
    """Every settings route's answer, so the Memory tab can redraw from any of them."""

    agent_id: str
    overrides: Overrides
    value: SettingValues
    origins: Origins
    binding: Binding | None

    @classmethod
    def of(cls, agent: AgentEntry, stored: StoredSettings) -> Self:
        saved = stored.overrides
        effective = resolve(saved, agent.memory)
        return cls(
            agent_id=agent.name,
            overrides=Overrides.model_validate({f: getattr(saved, f) for f in saved.present()}),
            value=SettingValues.model_validate({f: getattr(effective, f) for f in SETTING_FIELDS}),
            origins=Origins.model_validate(
                {f: getattr(effective.origins, f) for f in SETTING_FIELDS}
            ),
            binding=Binding.of(stored.binding),
        )


class MemoryAgent(Answer):
    agent_id: str
    binding: Binding | None
    declared_in: str  # "AGENTS=module:attr", or "worker <file>" for an attached worker
    source: Literal["module", "worker"]
    first_seen: Timestamp | None
    last_seen: Timestamp | None
    tools: list[str]
    held_tools: dict[str, list[Literal["approve", "edit", "reject"]]]  # tool: decisions allowed
    collections: list[str]
    loaded: bool  # whether this web process can run its text turns
    conflict_with: str | None  # where replaced, different memory defaults were declared

    @classmethod
    def of(cls, agent: AgentEntry, binding: settings.Binding | None) -> Self:
        """One registered agent as the listing and the console show it."""
        return cls(
            agent_id=agent.name,
            binding=Binding.of(binding),
            declared_in=agent.declared_in,
            source=agent.source,
            first_seen=agent.first_seen,
            last_seen=agent.last_seen,
            tools=list(agent.tools),
            held_tools={tool: list(kinds) for tool, kinds in agent.held},
            collections=list(agent.collections),
            loaded=agent.loaded,
            conflict_with=agent.conflict_with,
        )


class AgentRemoved(Answer):
    agent_id: str
    removed: bool


class MemoryAgents(Answer):
    agents: list[MemoryAgent]
