"""The extraction settings shared by all agents."""

from __future__ import annotations

from worker.http.server.answers.base import Answer, Timestamp


class PlatformDefault(Answer):
    model: str
    reasoning_effort: str


class Guidance(Answer):
    draft: str | None
    draft_saved_at: Timestamp | None
    published: str | None
    published_at: Timestamp | None
    uses_built_in: bool
    built_in: str


class Extraction(Answer):
    model: str | None
    reasoning_effort: str | None
    platform_default: PlatformDefault
    reasoning_efforts: list[str]
    guidance: Guidance
    updated_at: Timestamp | None
