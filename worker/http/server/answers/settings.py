"""An agent's memory settings and the registered agents, as the settings routes answer them."""

from __future__ import annotations

from typing import Literal

from worker.http.server.answers.base import Answer, Timestamp

Origin = Literal["studio", "code", "default"]


class Binding(Answer):
    identityKey: str
    source: Literal["code", "studio"]
    fixedAt: Timestamp | None


class SettingValues(Answer):
    read: bool
    save: bool
    instructions: str | None
    remember: list[str]
    forget: list[str]
    timeZone: str | None


class Overrides(Answer):
    read: bool | None = None
    save: bool | None = None
    instructions: str | None = None
    remember: list[str] | None = None
    forget: list[str] | None = None
    timeZone: str | None = None


class Origins(Answer):
    read: Origin
    save: Origin
    instructions: Origin
    remember: Origin
    forget: Origin
    timeZone: Origin


class Settings(Answer):
    agentId: str
    overrides: Overrides
    value: SettingValues
    origins: Origins
    binding: Binding | None


class MemoryAgent(Answer):
    agentId: str
    binding: Binding | None
    declaredIn: str  # "AGENTS=module:attr", or "worker <file>" for an attached worker
    source: Literal["module", "worker"]
    firstSeen: Timestamp | None
    lastSeen: Timestamp | None
    tools: list[str]
    heldTools: dict[str, list[Literal["approve", "edit", "reject"]]]  # tool: decisions allowed
    collections: list[str]
    loaded: bool  # whether this web process can run its text turns
    conflictWith: str | None  # where replaced, different memory defaults were declared


class AgentRemoved(Answer):
    agentId: str
    removed: bool


class MemoryAgents(Answer):
    agents: list[MemoryAgent]
