"""The public memory API: add, recall, history and delete_all, each returning a result envelope.

Inside, every step raises typed `MemoryFailure`s; this is the one place they become envelopes.
Every call answers within its bound (docs/memory-contract.md#time-bounds): its database work
runs under `infra.deadline.within` for the pool's command timeout, never twice it as asyncpg
alone would (the query, then the cancel on release).
Every write that changed facts emits one `memory.ops` event (`memory.ops`) to the
listeners registered with `on("ops", fn)`, after it committed (its ops log row is written by
the same statement).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TypeVar

import structlog

from infra import tracing
from infra.deadline import Bound, Deadline, Late, unbounded, within
from memory.config import MemoryConfig, resolve_choice
from memory.contract import (
    DEFAULT_RECALL_CALLS,
    AddOutcome,
    DeleteOutcome,
    History,
    InvalidRequest,
    MemoryFailure,
    PassContext,
    PersistFailed,
    Recall,
    Result,
    Unavailable,
    Written,
    plan,
    requests,
)
from memory.extraction import ExtractionModel, ExtractionRecord, build_prompt, response_format
from memory.ops import Listener, Listeners, build_event
from memory.search import (
    DEFAULT_K,
    DEFAULT_MODE,
    EmbeddingModel,
    Search,
    SearchAvailability,
    SearchOutcome,
    SearchStore,
    search_request,
)
from memory.settings import parse_brief
from memory.store import FailedSaves, MemoryStore, Read, record_read

T = TypeVar("T")
log = structlog.get_logger(__name__)


async def _enveloped(work: Callable[[], Awaitable[T]]) -> Result[T]:
    try:
        return Result.ok(await work())
    except MemoryFailure as failure:
        return Result.failed(failure)


@dataclass(frozen=True, slots=True)
class _Pass:
    """One add's arguments, as given (validated by `_add`); `turn` None for a plain add."""

    content: object
    agent_id: object
    user_id: object
    call: object
    instructions: object
    brief: object
    turn: int | None
    final: bool
    covers: int | None = None
    time_zone: object = None
    database: Bound = unbounded  # bounds each database step (not the extraction model call)


class Memory:
    """Per-person memory scoped by (agent id, user id)."""

    def __init__(
        self, store: MemoryStore, model: ExtractionModel, config: MemoryConfig, search: Search
    ) -> None:
        self._store = store
        self._model = model
        self._config = config
        self._search = search
        self._failed = FailedSaves(store.pool)  # counted per agent and code for the overview
        self.listeners = Listeners()

    async def note_read(self, read: Read) -> bool:
        """Append the record of a read of one person's memory (who, channel, route, counts);
        whether it was written. A failure is logged by code, never raised: the read it records
        has already answered."""
        try:
            await record_read(self._store.pool, read)
        except MemoryFailure as failure:
            log.warning("memory.read_unrecorded", code=failure.code, route=read.route)
            return False
        return True

    def on(self, event: str, listener: Listener) -> None:
        """Call `listener` with every `memory.ops` event (`event` is "ops"); see
        `memory.ops` for how a failing or asynchronous listener is handled."""
        self.listeners.on(event, listener)

    def off(self, event: str, listener: Listener) -> None:
        self.listeners.off(event, listener)

    async def recall(
        self,
        agent_id: object,
        user_id: object,
        calls: object = DEFAULT_RECALL_CALLS,
        *,
        database: Bound = unbounded,
    ) -> Result[Recall]:
        """`database` bounds the database step besides the command timeout (an HTTP route's
        deadline, as `search` takes it)."""

        async def work() -> Recall:
            scope = requests.agent_id(agent_id), requests.user_id(user_id)
            limit = requests.recall_calls(calls)
            return await self._database(
                lambda: database(self._store.recall(*scope, limit)), "recall", capability=database
            )

        with tracing.span("memory.recall", agent_id) as span:
            result = await _enveloped(work)
            found = result.data
            tracing.finish(
                span,
                None if result.error is None else result.error.code,
                facts=None if found is None else len(found.facts),
                calls=None if found is None else len(found.calls),
            )
        return result

    async def _database(
        self,
        work: Callable[[], Awaitable[T]],
        step: str,
        failure: type[MemoryFailure] = Unavailable,
        seconds: float | None = None,
        capability: Bound = unbounded,
    ) -> T:
        """The (cached) capability check (bounded by `capability` too) and `work` within the
        command timeout (or `seconds`); past it `failure`, and the work is abandoned to the
        background, never awaited."""

        async def capable() -> T:
            await capability(self._store.ensure_capability())
            return await work()

        bound = self._config.database_timeout_seconds if seconds is None else seconds
        try:
            return await within(Deadline.after(bound), capable(), step=f"memory.{step}")
        except Late:
            raise failure(f"memory.{step}: no answer within {bound:g} seconds") from None

    async def history(self, agent_id: object, user_id: object) -> Result[History]:
        """Every kept version of the person's facts, current ones included (see `History`)."""

        async def work() -> History:
            scope = requests.agent_id(agent_id), requests.user_id(user_id)
            return await self._database(lambda: self._store.history(*scope), "history")

        return await _enveloped(work)

    async def delete_all(self, agent_id: object, user_id: object) -> Result[DeleteOutcome]:
        async def work() -> DeleteOutcome:
            scope = requests.agent_id(agent_id), requests.user_id(user_id)
            erased = await self._database(lambda: self._store.delete_all(*scope), "delete_all")
            return DeleteOutcome(deleted=erased)

        return await _enveloped(work)

    async def add(
        self,
        content: object,
        agent_id: object,
        user_id: object,
        call: object = None,
        instructions: object = None,
        *,
        brief: object = None,
        time_zone: object = None,
        database: Bound = unbounded,
    ) -> Result[AddOutcome]:
        """`brief`: a `Brief` or `{"remember": [...], "forget": [...]}` for the extractor;
        `time_zone`: the agent's IANA time zone, which dates the conversation for the model
        (with `call["started_at"]`, else the time of the add); `database` bounds each
        database step besides the command timeout (an HTTP route's deadline; the extraction
        model call keeps its own timeout)."""
        result = await self._pass(
            _Pass(
                content,
                agent_id,
                user_id,
                call,
                instructions,
                brief,
                None,
                True,
                time_zone=time_zone,
                database=database,
            )
        )
        w = result.data
        if w is None or w.call is None:  # a plain add always writes its call record
            return Result(data=None, error=result.error)
        return Result.ok(AddOutcome(w.facts, w.call, w.revision, w.applied))

    async def consolidate(
        self,
        content: object,
        agent_id: object,
        user_id: object,
        *,
        turn: int,
        final: bool,
        call: object = None,
        instructions: object = None,
        brief: object = None,
        covers: int | None = None,
        time_zone: object = None,
    ) -> Result[Written]:
        """One pass of a call in turn mode (`lifecycle.passes`): an add over `content` (the part
        of the call no pass covered yet) whose event carries `turn` and `final`. Only the final
        pass writes the call record (`call`); the others write facts only, and move the call's
        journal mark to `covers` heard messages in the same statement."""
        return await self._pass(
            _Pass(
                content,
                agent_id,
                user_id,
                call,
                instructions,
                brief,
                turn,
                final,
                covers,
                time_zone,
            )
        )

    async def _pass(self, request: _Pass) -> Result[Written]:
        agent_id = request.agent_id
        record = ExtractionRecord(agent_id=agent_id if isinstance(agent_id, str) else "")
        with tracing.span("memory.save", agent_id) as span:
            try:
                return Result.ok(await self._add(record, request))
            except MemoryFailure as failure:
                record.outcome, record.error_code = "failed", failure.code
                if failure.code != InvalidRequest.code:  # past validation: the agent id is valid
                    self._failed.record(str(agent_id), failure.code)
                return Result.failed(failure)
            finally:
                record.emit()
                tracing.finish(
                    span,
                    record.error_code,
                    model=record.model,
                    prompt_tokens=record.prompt_tokens,
                    completion_tokens=record.completion_tokens,
                )

    async def _add(self, record: ExtractionRecord, request: _Pass) -> Written:
        agent, user = requests.agent_id(request.agent_id), requests.user_id(request.user_id)
        transcript = requests.transcript(request.content)
        metadata = requests.call_metadata(request.call)
        policy = requests.instructions(request.instructions)
        compiled_brief = parse_brief(request.brief)
        zone = requests.time_zone(request.time_zone)
        database = request.database
        snapshot = await self._database(
            lambda: database(self._store.snapshot(agent, user)), "snapshot", capability=database
        )
        if snapshot.guidance_error is not None:  # the built-in guidance runs, and that is said
            log.warning("memory.guidance_unreadable", error_code=snapshot.guidance_error)
        choice = resolve_choice(self._config, snapshot.model, snapshot.reasoning_effort)
        prompt = build_prompt(
            snapshot.facts,
            transcript,
            started_at=metadata.started_at or datetime.now(UTC),
            time_zone=zone,
            instructions=policy,
            guidance=snapshot.guidance,
            brief=compiled_brief,
        )
        record.model = choice.model
        started = time.perf_counter()
        try:
            completion = await self._model.complete(
                choice, prompt.messages, response_format(self._config.structured_output)
            )
        finally:
            record.latency_ms = (time.perf_counter() - started) * 1000
        record.prompt_tokens = completion.prompt_tokens
        record.completion_tokens = completion.completion_tokens
        validated = plan(completion.text, prompt.handles, transcript)  # evidence: in it
        context = PassContext(
            choice.model,
            record.latency_ms,
            request.turn,
            request.final,
            with_call=request.final,
            covers=request.covers,
        )
        written = await self._database(
            lambda: database(
                self._store.write(agent, user, snapshot, validated, metadata, context=context)
            ),
            "write",
            PersistFailed,
            capability=database,
        )
        self._search.indexer.schedule()  # vectors of the new facts, off the call path
        record.outcome = "saved"
        event = build_event(written, context, agent_id=agent, user_id=user, call_id=metadata.run_id)
        if event is not None:
            self.listeners.emit(event)
        return written

    async def search(
        self,
        agent_id: object,
        query: object,
        user_id: object = None,
        k: object = DEFAULT_K,
        mode: object = DEFAULT_MODE,
        *,
        database: Bound = unbounded,
    ) -> Result[SearchOutcome]:
        """Facts of one contact (`user_id`) or of every contact of the agent, best first.
        `database` bounds each database step besides the search's own time bound (an HTTP
        route's deadline); the query's embedding keeps the model's timeout."""

        async def work() -> SearchOutcome:
            request = search_request(agent_id, query, user_id, k, mode)
            seconds = self._config.search_timeout_seconds
            return await self._database(
                lambda: self._search.run(request, database),
                "search",
                seconds=seconds,
                capability=database,
            )

        return await _enveloped(work)

    async def search_availability(self) -> SearchAvailability:
        """What a search ranks by here and, if not by meaning, why (`Search.availability`); a
        database failure raises `Unavailable`."""
        return await self._search.availability()

    async def drain_indexing(self, grace_seconds: float | None = None) -> None:
        """Wait for the background vector pass, if one runs (before closing the pool); past
        `grace_seconds` it is cancelled and its facts wait for a later pass."""
        await self._search.indexer.drain(grace_seconds)

    async def aclose(self, grace_seconds: float | None = None) -> None:
        """Drain indexing (see `drain_indexing`) and failed-save records, then close the
        provider connections."""
        await self.drain_indexing(grace_seconds)
        await self._failed.drain()
        await self._search.aclose()
        await self._model.aclose()


def open_memory(store: MemoryStore, config: MemoryConfig) -> Memory:
    """Compose the memory API from a store and the provider configuration."""
    search = Search(SearchStore(store.pool), EmbeddingModel(config))
    return Memory(store, ExtractionModel(config), config, search)
