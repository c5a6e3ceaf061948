"""What the health check answers."""

from __future__ import annotations

from typing import Literal

from worker.http.server.answers.base import Answer


class Health(Answer):
    status: Literal["ok", "degraded"]
    database: Literal["ok", "timeout", "unreachable"]
    # why memory writes cannot succeed (with `degraded`), and its fix (docs/deployment.md)
    reason: str | None = None
    fix: str | None = None
    # how search over facts ranks here, and why not by meaning, with the fix
    search: Literal["semantic", "lexical"] | None = None
    searchReason: str | None = None
    searchFix: str | None = None
