"""Background passes that fill in missing fact vectors, off the call path.

A pass is scheduled after an add commits and on each search; it embeds facts whose vector is
missing (new, changed, or left over by a failed pass), a batch per request, and stops at the
first failure: nothing is retried within a pass, and the facts stay pending (searchable by text)
for the next one. At most one pass runs per process; a request meanwhile runs one more after it.
The task is held and its outcome retrieved; `drain` awaits it.
"""

from __future__ import annotations

import asyncio
import time

import structlog

from memory.contract import MemoryFailure
from memory.search._embeddings import MAX_BATCH, EmbeddingModel
from memory.search._store import SearchStore

log = structlog.get_logger(__name__)

MAX_BATCHES_PER_PASS = 8


class EmbeddingIndexer:
    def __init__(self, store: SearchStore, model: EmbeddingModel) -> None:
        self._store = store
        self._model = model
        self._task: asyncio.Task[None] | None = None
        self._again = False
        self._models_checked = False

    def schedule(self) -> None:
        """Start a pass now, or one more after the running one. Never blocks, never raises."""
        if self._model.model is None:
            return
        if self._task is not None and not self._task.done():
            self._again = True
            return
        self._task = asyncio.get_running_loop().create_task(self._passes())
        self._task.add_done_callback(_retrieve)

    async def drain(self, grace_seconds: float | None = None) -> None:
        """Wait for the running pass (and the one queued after it), whatever their outcome;
        past `grace_seconds` the pass is cancelled (its facts stay pending)."""
        task = self._task
        if task is None or task.done():
            return
        await asyncio.wait([task], timeout=grace_seconds)
        if not task.done():
            task.cancel()
            await asyncio.wait([task])

    async def _passes(self) -> None:
        while True:
            self._again = False
            await self.run_pass()
            if not self._again:
                return

    async def run_pass(self) -> int:
        """Embed pending facts, batch by batch; returns how many vectors were stored."""
        model = self._model.model
        if model is None or not await self._store.semantic_schema():
            return 0
        stored, started = 0, time.perf_counter()
        try:
            if not self._models_checked:
                await self._store.forget_other_models(model)
                self._models_checked = True
            for _ in range(MAX_BATCHES_PER_PASS):
                pending = await self._store.pending(MAX_BATCH)
                if not pending:
                    break
                vectors = await self._model.embed([fact.content for fact in pending])
                stored += await self._store.store_vectors(model, pending, vectors)
                if len(pending) < MAX_BATCH:
                    break
        except MemoryFailure as failure:
            log.warning("memory.embedding_pass_failed", error_code=failure.code, stored=stored)
            return stored
        if stored:
            log.info(
                "memory.embedding_pass",
                stored=stored,
                latency_ms=round((time.perf_counter() - started) * 1000, 1),
            )
        return stored


def _retrieve(task: asyncio.Task[None]) -> None:
    if task.cancelled():
        return
    if (exc := task.exception()) is not None:
        log.error("memory.embedding_pass_crashed", error_type=type(exc).__name__)
