"""What the health check answers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, Self

from memory.search import fix_of
from worker.http.server.answers.base import Answer

if TYPE_CHECKING:
    from memory.search import SearchAvailability


class Health(Answer):
    status: Literal["ok", "degraded"]
    database: Literal["ok", "timeout", "unreachable"]
    # why memory writes cannot succeed (with `degraded`), and its fix (docs/deployment.md)
    reason: str | None = None
    fix: str | None = None
    # how search over facts ranks here, and why not by meaning, with the fix
    search: Literal["semantic", "lexical"] | None = None
    search_reason: str | None = None
    search_fix: str | None = None

    @classmethod
    def seen(cls, writes: str | None, search: SearchAvailability) -> Self:
        """The database answered: `degraded` when memory writes cannot succeed (`writes` says
        why); the fixes only where there is something to fix."""
        fields: dict[str, Any] = {"status": "ok" if writes is None else "degraded"}
        fields["database"] = "ok"
        if writes is not None:
            fields |= {"reason": writes, "fix": fix_of(writes)}
        fields |= {"search": search.mode, "search_reason": search.reason}
        if search.reason is not None:
            fields["search_fix"] = fix_of(search.reason)
        return cls.model_validate(fields)
