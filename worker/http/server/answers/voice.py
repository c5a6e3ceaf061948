"""The voice routes: the agents, a browser test room, an outbound call."""

from __future__ import annotations

from worker.http.server.answers.base import Answer, Timestamp


class VoiceAgent(Answer):
    agentId: str
    identityKey: str | None


class VoiceAgents(Answer):
    agents: list[VoiceAgent]


class MemoryOutlook(Answer):
    identityKey: str | None
    enabled: bool
    reason: str | None


class Room(Answer):
    agentId: str
    roomName: str
    url: str
    token: str
    participantIdentity: str
    expiresAt: Timestamp
    dispatchId: str
    memory: MemoryOutlook


class OutboundCall(Answer):
    agentId: str
    roomName: str
    dispatchId: str
    trunkId: str
