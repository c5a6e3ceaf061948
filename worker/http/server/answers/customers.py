"""One customer's memory, its facts' history, an erasure and a search, as the customer routes
answer them and `caller-memory memory ...` prints them (with an add's outcome and a page of
customers, which only the CLI prints)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, Self

from memory.contract import UNKNOWN_SOURCE
from worker.http.server.answers.base import Answer, Number, Timestamp

if TYPE_CHECKING:
    from memory import contract
    from memory.search import SearchHit, SearchOutcome
    from memory.store import Customer


class WriterItem(Answer):
    """Who wrote: the agent, the LiveKit job, the API key's name (null when not known)."""

    agent: str | None
    job: str | None
    key: str | None


class SourceItem(Answer):
    """Where a fact version (or a call record) came from; a row written before provenance
    reads as channel `unknown` with every other field null or empty. `evidence` is a quote the
    conversation sent to the model holds (an invented one is never kept); `turns` are the
    positions (0-based) of the messages holding it."""

    channel: str
    call_id: str | None
    session_id: str | None
    turns: list[int]
    writer: WriterItem
    model: str | None
    evidence: str | None
    kind: str | None
    confidence: Number | None

    @classmethod
    def of(cls, source: contract.Source) -> Self:
        w = source.writer
        return cls(
            channel=source.channel,
            call_id=source.call_id,
            session_id=source.session_id,
            turns=list(source.turns),
            writer=WriterItem(agent=w.agent, job=w.job, key=w.key),
            model=source.model,
            evidence=source.evidence,
            kind=source.kind,
            confidence=source.confidence,
        )


class FactItem(Answer):
    id: str
    content: str
    created_at: Timestamp
    updated_at: Timestamp
    source: SourceItem

    @classmethod
    def of(cls, fact: contract.Fact) -> Self:
        return cls(
            id=fact.id,
            content=fact.content,
            created_at=fact.created_at,
            updated_at=fact.updated_at,
            source=SourceItem.of(fact.source),
        )


class CallItem(Answer):
    id: str
    started_at: Timestamp
    duration_seconds: Number | None
    outcome: str | None
    run_id: str | None
    summary: str
    created_at: Timestamp
    source: SourceItem

    @classmethod
    def of(cls, call: contract.CallRecord) -> Self:
        return cls(
            id=call.id,
            started_at=call.started_at,
            duration_seconds=call.duration_seconds,
            outcome=call.outcome,
            run_id=call.run_id,
            summary=call.summary,
            created_at=call.created_at,
            source=SourceItem.of(call.source),
        )


class CustomerMemory(Answer):
    agent_id: str
    user_id: str
    facts: list[FactItem]
    calls: list[CallItem]

    @classmethod
    def of(cls, agent_id: str, user_id: str, memory: contract.Recall) -> Self:
        facts = [FactItem.of(f) for f in memory.facts]
        calls = [CallItem.of(c) for c in memory.calls]
        return cls(agent_id=agent_id, user_id=user_id, facts=facts, calls=calls)


class FactVersionItem(Answer):
    fact_id: str
    version_id: str
    content: str
    valid_from: Timestamp
    valid_to: Timestamp | None
    ended_by: str | None
    source: SourceItem

    @classmethod
    def of(cls, version: contract.FactVersion) -> Self:
        return cls(
            fact_id=version.fact_id,
            version_id=version.version_id,
            content=version.content,
            valid_from=version.valid_from,
            valid_to=version.valid_to,
            ended_by=version.ended_by,
            source=SourceItem.of(version.source),
        )


class FactHistory(Answer):
    agent_id: str
    user_id: str
    versions: list[FactVersionItem]

    @classmethod
    def of(cls, agent_id: str, user_id: str, kept: contract.History) -> Self:
        versions = [FactVersionItem.of(v) for v in kept.versions]
        return cls(agent_id=agent_id, user_id=user_id, versions=versions)


class Erased(Answer):
    agent_id: str
    user_id: str
    deleted: int

    @classmethod
    def of(cls, agent_id: str, user_id: str, outcome: contract.DeleteOutcome) -> Self:
        return cls(agent_id=agent_id, user_id=user_id, deleted=outcome.deleted)


class SearchItem(Answer):
    """One hit; `source` is the fact's (null for an identifier hit, which names no fact)."""

    contact: str
    id: str | None
    text: str | None
    score: Number
    source: SourceItem | None

    @classmethod
    def of(cls, hit: SearchHit) -> Self:
        source = None if hit.source is None else SourceItem.of(hit.source)
        return cls(contact=hit.contact, id=hit.id, text=hit.text, score=hit.score, source=source)


class SearchResults(Answer):
    agent_id: str
    user_id: str | None
    mode: Literal["lexical", "semantic", "hybrid", "identifier"]
    lexical_only: bool
    reason: str | None
    items: list[SearchItem]

    @classmethod
    def of(cls, agent_id: str, user_id: str | None, found: SearchOutcome) -> Self:
        return cls(
            agent_id=agent_id,
            user_id=user_id,
            mode=found.mode,
            lexical_only=found.lexical_only,
            reason=found.reason,
            items=[SearchItem.of(hit) for hit in found.items],
        )


class AppliedItem(Answer):
    """One change an add applied (`caller-memory memory add`)."""

    op: Literal["add", "update", "delete"]
    fact_id: str
    version_id: str
    supersedes: str | None
    valid_from: Timestamp
    valid_to: Timestamp | None
    reason: str | None  # why the model deleted the fact (a delete only)
    source: SourceItem

    @classmethod
    def of(cls, op: contract.AppliedOp) -> Self:
        source = op.source if op.source is not None else UNKNOWN_SOURCE
        return cls(
            op=op.op,
            fact_id=op.fact_id,
            version_id=op.version_id,
            supersedes=op.supersedes,
            valid_from=op.valid_from,
            valid_to=op.valid_to,
            reason=op.note.reason,
            source=SourceItem.of(source),
        )


class Added(Answer):
    """What an add kept (`caller-memory memory add`): the facts now, the call, the changes."""

    agent_id: str
    user_id: str
    revision: int
    facts: list[FactItem]
    call: CallItem
    applied: list[AppliedItem]

    @classmethod
    def of(cls, agent_id: str, user_id: str, outcome: contract.AddOutcome) -> Self:
        return cls(
            agent_id=agent_id,
            user_id=user_id,
            revision=outcome.revision,
            facts=[FactItem.of(f) for f in outcome.facts],
            call=CallItem.of(outcome.call),
            applied=[AppliedItem.of(op) for op in outcome.applied],
        )


class CustomerItem(Answer):
    user_id: str
    facts: int
    calls: int
    last_call_at: Timestamp | None


class Customers(Answer):
    """A page of an agent's customers (`caller-memory memory customers`); `next`: the user id
    the next page starts after, None on the last page."""

    agent_id: str
    customers: list[CustomerItem]
    next: str | None

    @classmethod
    def page(cls, agent_id: str, page: list[Customer], limit: int) -> Self:
        items = [
            CustomerItem(
                user_id=c.user_id, facts=c.facts, calls=c.calls, last_call_at=c.last_call_at
            )
            for c in page
        ]
        after = page[-1].user_id if len(page) == limit else None
        return cls(agent_id=agent_id, customers=items, next=after)
