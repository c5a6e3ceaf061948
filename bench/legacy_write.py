"""The add's write as it was before the one-statement write: a reference for the benchmark only.

Nine round trips in one transaction (acquire, BEGIN, revision insert, revision lock, delete,
update, insert, call record, final facts, revision bump, COMMIT). It keeps no fact history, so
it does less than today's write; the benchmark prints it beside the current one, in one run.
"""

from __future__ import annotations

from infra.database import Executor
from memory.contract import CallMetadata, CallRecord, Conflict, Fact, PassContext, Plan, Written
from memory.store import DIRECT_WRITE, MemoryStore, Snapshot

S = "stackbone_platform"
_FACTS = f"""select array_agg(id::text order by seq) as fact_ids,
        array_agg(content order by seq) as fact_contents,
        array_agg(created_at order by seq) as fact_created,
        array_agg(updated_at order by seq) as fact_updated
    from {S}.memory_facts where agent_id = $1 and user_id = $2"""


class LegacyWriteStore(MemoryStore):
    """The store with the earlier nine-round-trip write."""

    async def write(
        self,
        agent_id: str,
        user_id: str,
        read: Snapshot,
        plan: Plan,
        call: CallMetadata,
        *,
        context: PassContext = DIRECT_WRITE,  # no ops log then: it kept none
    ) -> Written:
        revision = read.revision
        async with self._pool.acquire() as conn, conn.transaction():
            await _lock_revision(conn, agent_id, user_id, revision)
            await _apply(conn, agent_id, user_id, plan)
            record = await conn.fetchrow(
                f"""insert into {S}.memory_calls (agent_id, user_id, started_at,
                    duration_seconds, outcome, run_id, summary, created_at)
                values ($1, $2, coalesce($3, now()), $4, $5, $6, $7, now())
                returning id::text, started_at, duration_seconds, outcome, run_id, summary,
                    created_at""",
                agent_id,
                user_id,
                call.started_at,
                call.duration_seconds,
                call.outcome,
                call.run_id,
                plan.summary,
            )
            row = await conn.fetchrow(_FACTS, agent_id, user_id)
            await conn.execute(
                f"update {S}.memory_revisions set revision = revision + 1"
                " where agent_id = $1 and user_id = $2",
                agent_id,
                user_id,
            )
        assert record is not None and row is not None
        columns = (
            row[k] or () for k in ("fact_ids", "fact_contents", "fact_created", "fact_updated")
        )
        facts = tuple(Fact(*values) for values in zip(*columns, strict=True))
        return Written(facts, CallRecord(*record.values()), revision + 1, (), None)


async def _lock_revision(conn: Executor, agent_id: str, user_id: str, read: int) -> None:
    await conn.execute(
        f"insert into {S}.memory_revisions (agent_id, user_id) values ($1, $2)"
        " on conflict do nothing",
        agent_id,
        user_id,
    )
    current = await conn.fetchval(
        f"select revision from {S}.memory_revisions"
        " where agent_id = $1 and user_id = $2 for update",
        agent_id,
        user_id,
    )
    if current != read:
        raise Conflict("memory changed while the model request was in flight")


async def _apply(conn: Executor, agent_id: str, user_id: str, plan: Plan) -> None:
    if plan.deletes:
        await conn.execute(
            f"delete from {S}.memory_facts where agent_id = $1 and user_id = $2"
            " and id = any($3::uuid[])",
            agent_id,
            user_id,
            list(plan.deletes),
        )
    if plan.updates:
        await conn.execute(
            f"""update {S}.memory_facts f set content = u.content, updated_at = now()
            from unnest($3::uuid[], $4::text[]) as u(id, content)
            where f.id = u.id and f.agent_id = $1 and f.user_id = $2""",
            agent_id,
            user_id,
            [fact_id for fact_id, _ in plan.updates],
            [content for _, content in plan.updates],
        )
    if plan.adds:
        await conn.execute(
            f"""insert into {S}.memory_facts (agent_id, user_id, content, created_at, updated_at)
            select $1, $2, t.content, now(), now()
            from unnest($3::text[]) with ordinality as t(content, n) order by t.n""",
            agent_id,
            user_id,
            list(plan.adds),
        )
