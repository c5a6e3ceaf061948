"""The voice routes: the agents, a browser test room, an outbound call."""

from __future__ import annotations

from worker.http.server.answers.base import Answer, Timestamp


class VoiceAgent(Answer):
    agent_id: str
    identity_key: str | None


class VoiceAgents(Answer):
    agents: list[VoiceAgent]


class MemoryOutlook(Answer):
    identity_key: str | None
    enabled: bool
    reason: str | None


class Room(Answer):
    agent_id: str
    room_name: str
    url: str
    token: str
    participant_identity: str
    expires_at: Timestamp
    dispatch_id: str
    memory: MemoryOutlook


class OutboundCall(Answer):
    agent_id: str
    room_name: str
    dispatch_id: str
    trunk_id: str
    memory: MemoryOutlook
