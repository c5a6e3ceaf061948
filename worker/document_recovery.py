"""Recovery of document ingests cut short, in the web process: a pass at start, then every
minute (`memory.documents.Documents.recover`). Several web processes may run it at once: each
abandoned document is claimed by one. A failed pass is logged by its code and tried again."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import structlog

from memory.documents import Documents, Recovered
from worker.periodic import running_every

log = structlog.get_logger(__name__)

INTERVAL_SECONDS = 60.0


async def recovery_pass(docs: Documents, stale_seconds: float) -> Recovered | None:
    """One pass; what it settled, or None when it failed (logged by code)."""
    result = await docs.recover(stale_seconds)
    if result.error is not None:
        log.warning("documents.recovery_failed", error_code=result.error.code)
        return None
    assert result.data is not None
    if result.data.ready or result.data.failed:
        log.info("documents.recovery", ready=result.data.ready, failed=result.data.failed)
    return result.data


@contextlib.asynccontextmanager
async def recovery_running(
    docs: Documents, stale_seconds: float, interval_seconds: float = INTERVAL_SECONDS
) -> AsyncIterator[None]:
    async with running_every(
        "document-recovery", interval_seconds, lambda: recovery_pass(docs, stale_seconds)
    ):
        yield
