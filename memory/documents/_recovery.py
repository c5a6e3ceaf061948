"""Recovery of ingests cut short: documents a stopped process left `pending`.

An ingest under way touches its document after every embedding batch, so one pending and
untouched for longer than the bound (`stale_seconds`, well past one batch's embedding timeout)
was abandoned: its process stopped (a shutdown past the drain, a crash, a kill). A pass claims
such documents one at a time (one process takes each) and ingests each again **from its kept
original**: the uploader was told 202 and expects it to become ready, and the bytes are here, so
asking them to upload it again would only lose time. A document whose ingest was cut
`MAX_RECOVERIES` times (it may be the cause: a file that stops the process) is marked `failed`
with `rag_ingest_interrupted` instead, so it is not tried forever.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Final, Literal

import structlog

from memory.documents._store import Abandoned, Claimed, DocumentStore

log = structlog.get_logger(__name__)

MAX_RECOVERIES: Final = 3
"""Recoveries of one document; the next claim marks it failed."""
DEFAULT_STALE_SECONDS: Final = 300.0
MAX_PER_PASS: Final = 20
INTERRUPTED: Final = "rag_ingest_interrupted"

Step = Literal["ingest", "fail", "skip"]


def step_for(claimed: Claimed, max_recoveries: int = MAX_RECOVERIES) -> Step:
    """What a pass does with a claimed document: ingest it again, give it up, or nothing (it
    is no longer pending: deleted or finished meanwhile)."""
    if claimed.original is None:
        return "skip"
    return "ingest" if claimed.attempts <= max_recoveries else "fail"


@dataclass(frozen=True, slots=True)
class Recovered:
    """One pass: documents ingested again (`ready`), and marked `failed` (with their code)."""

    ready: int = 0
    failed: int = 0


async def recover_pass(
    store: DocumentStore,
    again: Callable[[str, Abandoned], Awaitable[bool]],
    stale_seconds: float,
    most: int,
) -> Recovered:
    """Claim and settle up to `most` abandoned documents; `again` ingests one from its original
    (True: ready). Store failures end the pass (raised); one document's failure does not."""
    ready = failed = 0
    for _ in range(most):
        claimed = await store.claim_abandoned(stale_seconds)
        if claimed is None:
            break
        step = step_for(claimed)
        if step == "fail":
            await store.fail(claimed.id, INTERRUPTED)
            failed += 1
        elif step == "ingest" and claimed.original is not None:
            done = await again(claimed.id, claimed.original)
            ready, failed = ready + done, failed + (not done)
        log.info("documents.recovered", document_id=claimed.id, step=step, attempt=claimed.attempts)
    return Recovered(ready, failed)
