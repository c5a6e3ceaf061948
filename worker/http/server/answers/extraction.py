"""The extraction settings shared by all agents."""

from __future__ import annotations

from worker.http.server.answers.base import Answer, Timestamp


class PlatformDefault(Answer):
    model: str
    reasoningEffort: str


class Guidance(Answer):
    draft: str | None
    draftSavedAt: Timestamp | None
    published: str | None
    publishedAt: Timestamp | None
    usesBuiltIn: bool
    builtIn: str


class Extraction(Answer):
    model: str | None
    reasoningEffort: str | None
    platformDefault: PlatformDefault
    reasoningEfforts: list[str]
    guidance: Guidance
    updatedAt: Timestamp | None
