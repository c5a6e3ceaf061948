"""An add's write as one SQL statement: one round trip, atomic without an explicit transaction.

Data-modifying CTEs do, in one statement, what used to be nine round trips in a transaction:

1. `old` reads the facts the plan updates whose text really changes (an update to the text
   already stored is not an update: no write, no version), and `k` counts the versions this
   write closes (those updates plus the deletes).
2. `rev` compares and sets the revision: an upsert that moves it from the revision read before
   the model call to the next one, and returns nothing when it moved meanwhile. `ON CONFLICT DO
   UPDATE` locks the row and checks the latest committed revision, so two writers, or a writer
   and an erasure, cannot both pass. It also counts the versions closed since the last erasure.
3. Every change is gated on `rev` (`exists (select from rev)`, a one-time filter that runs
   `rev` first, so the revision row is locked before any fact is touched, as in `delete_all`).
   A conflict therefore writes nothing and returns no rows at all.
4. `del`, `upd` and `ins` apply the plan; `closed` moves the versions that deletes and updates
   end into `memory_fact_versions`; `pruned` drops that person's oldest closed versions beyond
   the bound (how many follows from the counter, without counting rows); `call` inserts the
   call record (unless the write is a pass without one, `$18`; with the channel the caller
   named, `$20`) and `calls_pruned` drops the person's call records beyond `MAX_CALL_RECORDS`,
   oldest first; `ops` and `logged` append the `memory.ops` event's row to the ops log when
   anything changed (`memory.ops`).
5. The call's journal (`memory.store._journal`, found by the call's run id, the job id):
   a write with the call record deletes it (`journal_saved`), so what the call heard is either
   in its journal or saved, never both; a turn pass moves its `covered` mark instead
   (`journal_covered`, `$19`: the heard messages this pass covers up to).

Every CTE sees the snapshot taken when the statement starts, and a passed compare-and-set means
no writer committed since the add's read: what the statement read is what is stored.

The statement returns plain rows of built-in types (no arrays or records, so a new connection
needs no type introspection; ids travel as text for the same reason): the call record, the
added, updated and deleted facts, and one row with the revision and the ops log id, told apart
by `kind`. Unchanged facts are not sent back:
`decode` builds the final list from the facts the add read.

Provenance (migration 0030, `memory.store._write_sources`): `$21` and `$22` are the sources
of the updates' and adds' new versions (JSON text, aligned with `$5` and `$7`), stored on the
facts and copied into their ops items (with the notes `kind`, `confidence`, `evidence`); `$23`
each delete's notes and source (aligned with `$4`); `$24` the write's own source, stored on the
call record and the ops log row. A closed version keeps the source it had.

Fact texts and the summary are what a model wrote, so they may hold a NUL or a lone surrogate:
`arguments` escapes them (`memory.store._stored_text`), `decode` reads them back, and the ops
log row holds them escaped (its reader unescapes them).
"""

from __future__ import annotations

from collections.abc import Sequence

import asyncpg

from memory.contract import (
    MAX_HISTORY_VERSIONS,
    MAX_RECALL_CALLS,
    UNKNOWN_SOURCE,
    CallMetadata,
    CallRecord,
    Fact,
    PassContext,
    Plan,
    Written,
    source_json,
)
from memory.store._stored_text import read_text, stored_text
from memory.store._write_sources import (
    ADDED,
    CALL,
    DELETED,
    REVISION,
    UPDATED,
    Provenance,
    as_json,
    delete_note,
    noted_of,
    provenance,
)

_S = "stackbone_platform"

MAX_CALL_RECORDS = MAX_RECALL_CALLS
"""Call records kept per person: recall returns at most this many, nothing reads older ones."""
_GATE = "exists (select from rev)"
_SCOPE = "agent_id = $1 and user_id = $2"
# the event's instants, rendered as `memory.ops._event.instant` renders them
_UTC = """to_char(({}) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')"""


def _op(kind: str, alias: str, supersedes: str, valid_to: str, text: str) -> str:
    return (
        f"jsonb_build_object('op', '{kind}', 'id', {alias}.id::text,"
        f" 'version', {alias}.version_id::text, 'supersedes', {supersedes},"
        f" 'valid_from', {_UTC.format(alias + '.updated_at')}, 'valid_to', {valid_to},"
        f" 'text', {text})"
    )


def _with_notes(alias: str) -> str:
    """An add's or update's note: what its new version's source says (`memory.ops._event`)."""
    source = f"{alias}.source"
    return (
        f" || jsonb_build_object('kind', {source} -> 'kind', 'confidence',"
        f" {source} -> 'confidence', 'evidence', {source} -> 'evidence', 'reason', null,"
        f" 'source', {source})"
    )


WRITE = f"""with old as (
    select f.id, f.seq, f.content, f.updated_at, f.version_id, f.source,
        u.content as new_content, u.source::jsonb as new_source
    from unnest($5::text[]::uuid[], $6::text[], $21::text[]) as u(id, content, source)
    join {_S}.memory_facts f on f.id = u.id and f.agent_id = $1 and f.user_id = $2
    where f.content <> u.content
), k as (
    select (select count(*) from old) + cardinality($4::text[]::uuid[]) as closing
), rev as (
    insert into {_S}.memory_revisions as r (agent_id, user_id, revision, closed_versions)
    values ($1, $2, $3::bigint + 1, (select closing from k))
    on conflict (agent_id, user_id) do update
    set revision = excluded.revision,
        closed_versions = r.closed_versions + excluded.closed_versions
    where r.revision = $3::bigint
    returning revision, closed_versions
), del as (
    delete from {_S}.memory_facts
    where {_SCOPE} and id = any($4::text[]::uuid[]) and {_GATE}
    returning id, seq, content, updated_at, version_id, source
), upd as (
    update {_S}.memory_facts f
    set content = o.new_content, updated_at = now(), version_id = gen_random_uuid(),
        source = o.new_source
    from old o
    where f.id = o.id and {_GATE}
    returning f.id, f.seq, f.content, f.created_at, f.updated_at, f.version_id,
        o.version_id as supersedes, f.source
), ins as (
    insert into {_S}.memory_facts (agent_id, user_id, content, created_at, updated_at, source)
    select $1, $2, t.content, now(), now(), t.source::jsonb
    from unnest($7::text[], $22::text[]) with ordinality as t(content, source, n)
    where {_GATE}
    order by t.n
    returning id, seq, content, created_at, updated_at, version_id, source
), closed as (
    insert into {_S}.memory_fact_versions (id, fact_id, fact_seq, agent_id, user_id, content,
        valid_from, valid_to, ended_by, source)
    select o.version_id, o.id, o.seq, $1, $2, o.content, o.updated_at, now(), 'update',
            o.source
        from old o join upd u on u.id = o.id
    union all
    select d.version_id, d.id, d.seq, $1, $2, d.content, d.updated_at, now(), 'delete',
            d.source
        from del d
    returning 1
), pruned as (
    -- kept before this write: least(closed before, bound); drop the oldest beyond the bound
    delete from {_S}.memory_fact_versions
    where {_SCOPE} and seq <= (select max(p.seq) from (select seq
        from {_S}.memory_fact_versions where {_SCOPE} order by seq
        limit coalesce((select greatest(0,
            least(r.closed_versions - k.closing, $13::bigint) + k.closing - $13::bigint)
            from rev r, k), 0)) p)
), call as (
    insert into {_S}.memory_calls (agent_id, user_id, started_at, duration_seconds, outcome,
        run_id, summary, created_at, channel, source)
    select $1, $2, coalesce($8::timestamptz, now()), $9::float8, $10::text, $11::text,
        $12::text, now(), $20::text, $24::text::jsonb
    where {_GATE} and $18::boolean
    returning id, seq, summary, started_at, created_at, duration_seconds, outcome, run_id
), calls_pruned as (
    -- a write with a call record keeps the person's newest records before it, up to the bound
    -- less one (its own is the last): no read can reach past the bound (recall's maximum)
    delete from {_S}.memory_calls
    where id in (select id from {_S}.memory_calls where {_SCOPE}
                 order by started_at desc, seq desc offset {MAX_CALL_RECORDS - 1})
        and {_GATE} and $18::boolean
), ops as (
    select jsonb_agg(o.item order by o.rank, o.seq) as items from (
        select 0 as rank, d.seq, {_op("delete", "d", "null", _UTC.format("now()"), "null")}
            || x.note::jsonb as item
        from del d join unnest($4::text[]::uuid[], $23::text[]) as x(id, note) on x.id = d.id
        union all
        select 1, u.seq, {_op("update", "u", "u.supersedes::text", "null", "u.content")}
            {_with_notes("u")} from upd u
        union all
        select 2, i.seq, {_op("add", "i", "null", "null", "i.content")} {_with_notes("i")}
            from ins i
    ) o
), logged as (
    insert into {_S}.memory_ops
        (agent_id, user_id, call_id, turn, final, revision, model, latency_ms, ops, source)
    select $1, $2, $11::text, $16::integer, $17::boolean, (select revision from rev),
        $14::text, $15::float8, items, $24::text::jsonb
    from ops where items is not null
    returning id
), journal_covered as (
    update {_S}.call_journals set covered = greatest(covered, $19::integer)
    where {_SCOPE} and job_id = $11::text and $19::integer is not null and not $18::boolean
        and {_GATE}
), journal_saved as (
    delete from {_S}.call_journals
    where {_SCOPE} and job_id = $11::text and $18::boolean and {_GATE}
)
select {CALL} as kind, seq, id::text, summary as body, started_at as first_at,
    created_at as second_at, null::text as version, null::text as prior,
    duration_seconds as duration, outcome, run_id, (select revision from rev) as revision
  from call
union all
select {ADDED}, seq, id::text, content, created_at, updated_at, version_id::text, null,
    null, null, null, null from ins
union all
select {UPDATED}, seq, id::text, content, created_at, updated_at, version_id::text,
    supersedes::text, null, null, null, null from upd
union all
select {DELETED}, seq, id::text, null, updated_at, now(), version_id::text, null,
    null, null, null, null from del
union all
select {REVISION}, null, (select id::text from logged), null, null, null, null, null,
    null, null, null, revision from rev"""


def arguments(
    agent_id: str,
    user_id: str,
    revision: int,
    plan: Plan,
    call: CallMetadata,
    *,
    context: PassContext,
    sources: Provenance | None = None,
) -> tuple[object, ...]:
    """The statement's parameters, $1..$24, in order."""
    kept = provenance(agent_id, plan, call, context) if sources is None else sources
    return (
        agent_id,
        user_id,
        revision,
        list(plan.deletes),
        [fact_id for fact_id, _ in plan.updates],
        [stored_text(content) for _, content in plan.updates],
        [stored_text(content) for content in plan.adds],
        call.started_at,
        call.duration_seconds,
        call.outcome,
        call.run_id,
        stored_text(plan.summary),
        MAX_HISTORY_VERSIONS,
        context.model,
        context.latency_ms,
        context.turn,
        context.final,
        context.with_call,
        context.covers,
        call.channel,
        [as_json(source_json(s)) for s in kept.updates],
        [as_json(source_json(s)) for s in kept.adds],
        [delete_note(plan.note("delete", i), source) for i, source in enumerate(kept.deletes)],
        as_json(source_json(kept.write)),
    )


def decode(
    rows: Sequence[asyncpg.Record],
    before: Sequence[Fact],
    plan: Plan | None = None,
    sources: Provenance | None = None,
) -> Written | None:
    """The add's outcome; None when the revision had moved (the statement wrote nothing).

    `before` are the facts read with the revision the write compared against: as it passed,
    they were still the stored facts, so the final list is built from them and the changed rows
    (facts keep their insertion order; an update keeps its place). `plan` and `sources` give
    each changed fact its note and source.
    """
    heads = [r for r in rows if r[0] == REVISION]
    if not heads:
        return None
    head, calls = heads[0], [r for r in rows if r[0] == CALL]
    noted = noted_of(rows, plan, sources)
    changed = {r[2]: r for r in rows if r[0] in (UPDATED, DELETED)}
    facts: list[Fact] = []
    for fact in before:
        row = changed.get(fact.id)
        if row is None:
            facts.append(fact)
        elif row[0] == UPDATED:
            facts.append(noted.fact(row))
    added = sorted((r for r in rows if r[0] == ADDED), key=lambda r: r[1])
    facts.extend(noted.fact(r) for r in added)
    order = {DELETED: 0, UPDATED: 1, ADDED: 2}
    applied = sorted((r for r in rows if r[0] in order), key=lambda r: (order[r[0]], r[1]))
    written = UNKNOWN_SOURCE if sources is None else sources.write
    return Written(
        facts=tuple(facts),
        call=next(
            (
                CallRecord(c[2], c[4], c[8], c[9], c[10], read_text(c[3]), c[5], written)
                for c in calls
            ),
            None,
        ),
        revision=int(head[11]),
        applied=tuple(noted.applied(r) for r in applied),
        log_id=None if head[2] is None else int(head[2]),
    )
