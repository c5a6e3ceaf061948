"""Postgres access for memory settings: overrides, identity bindings, guidance, activity.

The voice worker reads an agent's settings at every room open, so `load_call_settings` answers
with one query. Decisions (resolution, validation, binding) live in `memory.settings`; this
module only runs SQL and turns database errors into memory failures, once.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import asyncpg
import structlog

from memory.database import Executor
from memory.db_errors import translated
from memory.errors import Conflict, PersistFailed, Unavailable
from memory.settings import (
    Binding,
    BindingOutcome,
    BindingSource,
    CallSettings,
    CodeDefaults,
    ModelSelectionUpdate,
    Overrides,
    SettingField,
    SettingsUpdate,
    call_settings,
    decide_binding,
    published_guidance,
)

log = structlog.get_logger(__name__)

Queryable = asyncpg.Pool | Executor
_S = "stackbone_platform"
CODE_ACTOR = "code"

_STORED = f"""select o.read, o.save, o.instructions, b.identity_key, b.source, b.fixed_at
  from (select 1) as one
  left join {_S}.memory_agent_overrides o on o.agent_id = $1
  left join {_S}.memory_identity_bindings b on b.agent_id = $1"""


@dataclass(frozen=True, slots=True)
class StoredSettings:
    """An agent's stored overrides and identity binding."""

    overrides: Overrides
    binding: Binding | None


@dataclass(frozen=True, slots=True)
class ExtractionSettings:
    """The shared extraction row: stored model selection and guidance draft/published."""

    model: str | None
    reasoning_effort: str | None
    guidance_draft: str | None
    guidance_published: str | None
    draft_saved_at: datetime | None
    published_at: datetime | None
    updated_at: datetime | None


@dataclass(frozen=True, slots=True)
class ActivityEntry:
    id: int
    at: datetime
    actor: str
    agent_id: str | None
    action: str
    fields: tuple[str, ...]


def _stored(row: asyncpg.Record) -> StoredSettings:
    overrides = Overrides(read=row["read"], save=row["save"], instructions=row["instructions"])
    binding = None
    if row["identity_key"] is not None:
        binding = Binding(row["identity_key"], row["source"], row["fixed_at"])
    return StoredSettings(overrides, binding)


async def load_settings(db: Queryable, agent_id: str) -> StoredSettings:
    """An agent's overrides and binding, in one query."""
    async with translated(Unavailable, "settings read"):
        row = await db.fetchrow(_STORED, agent_id)
    assert row is not None
    return _stored(row)


async def load_call_settings(db: Queryable, agent_id: str, code: CodeDefaults) -> CallSettings:
    """Effective read/save/instructions and the identity binding, in one round trip."""
    stored = await load_settings(db, agent_id)
    return call_settings(stored.overrides, code, stored.binding)


async def _record(
    conn: Executor, actor: str, agent_id: str | None, action: str, fields: tuple[str, ...]
) -> None:
    await conn.execute(
        f"insert into {_S}.memory_settings_activity (actor, agent_id, action, fields)"
        " values ($1, $2, $3, $4)",
        actor,
        agent_id,
        action,
        list(fields),
    )


async def _bind(conn: Executor, agent_id: str, key: str, source: BindingSource) -> BindingOutcome:
    inserted = await conn.fetchval(
        f"insert into {_S}.memory_identity_bindings (agent_id, identity_key, source)"
        " values ($1, $2, $3) on conflict (agent_id) do nothing returning true",
        agent_id,
        key,
        source,
    )
    if inserted:
        return "bound"
    bound = await conn.fetchval(
        f"select identity_key from {_S}.memory_identity_bindings where agent_id = $1", agent_id
    )
    return decide_binding(bound, key)


async def save_settings(
    pool: asyncpg.Pool, agent_id: str, update: SettingsUpdate, actor: str
) -> StoredSettings:
    """Apply a validated PUT in one transaction; a conflicting identity key changes nothing."""
    set_fields = update.overrides.present()
    async with (
        translated(PersistFailed, "settings write"),
        pool.acquire() as conn,
        conn.transaction(),
    ):
        if update.identity_key is not None:
            outcome = await _bind(conn, agent_id, update.identity_key, "studio")
            if outcome == "conflict":
                raise Conflict(
                    "identityKey: the identity key is already fixed", field="identityKey"
                )
        if set_fields:
            await conn.execute(
                f"""insert into {_S}.memory_agent_overrides as o
                  (agent_id, read, save, instructions)
                values ($1, $2, $3, $4) on conflict (agent_id) do update set
                  read = coalesce(excluded.read, o.read),
                  save = coalesce(excluded.save, o.save),
                  instructions = coalesce(excluded.instructions, o.instructions),
                  updated_at = now()""",
                agent_id,
                update.overrides.read,
                update.overrides.save,
                update.overrides.instructions,
            )
        if update.field_names():
            await _record(conn, actor, agent_id, "save", update.field_names())
        row = await conn.fetchrow(_STORED, agent_id)
    assert row is not None
    return _stored(row)


async def reset_settings(
    pool: asyncpg.Pool, agent_id: str, field: SettingField | None, actor: str
) -> StoredSettings:
    """Remove one override (or all of them) so code or the default shows through again."""
    fields: tuple[SettingField, ...] = (
        ("read", "save", "instructions") if field is None else (field,)
    )
    clears = ", ".join(f"{name} = null" for name in fields)  # names come from a closed Literal
    async with (
        translated(PersistFailed, "settings reset"),
        pool.acquire() as conn,
        conn.transaction(),
    ):
        await conn.execute(
            f"update {_S}.memory_agent_overrides set {clears}, updated_at = now()"
            " where agent_id = $1",
            agent_id,
        )
        await conn.execute(
            f"delete from {_S}.memory_agent_overrides where agent_id = $1"
            " and read is null and save is null and instructions is null",
            agent_id,
        )
        await _record(conn, actor, agent_id, "reset", fields)
        row = await conn.fetchrow(_STORED, agent_id)
    assert row is not None
    return _stored(row)


async def offer_code_bindings(
    pool: asyncpg.Pool, declared: Mapping[str, str]
) -> dict[str, BindingOutcome]:
    """Offer each code-declared identity key (agent id -> key) to the binding at start-up.

    A conflict is logged as an error and the stored binding stays. Returns each agent's outcome.
    """
    outcomes: dict[str, BindingOutcome] = {}
    for agent_id, key in declared.items():
        async with (
            translated(PersistFailed, "identity binding"),
            pool.acquire() as conn,
            conn.transaction(),
        ):
            outcome = await _bind(conn, agent_id, key, "code")
            if outcome == "bound":
                await _record(conn, CODE_ACTOR, agent_id, "bind", ("identityKey",))
        outcomes[agent_id] = outcome
        if outcome == "conflict":
            log.error("memory.identity_binding_conflict", agent_id=agent_id, source="code")
        elif outcome == "bound":
            log.info("memory.identity_bound", agent_id=agent_id, source="code")
    return outcomes


_EXTRACTION = f"""select model, reasoning_effort, guidance_draft, guidance_published,
    guidance_draft_saved_at, guidance_published_at, updated_at
  from {_S}.memory_extraction_settings"""

_UPSERT_ROW = f"""insert into {_S}.memory_extraction_settings (singleton) values (true)
  on conflict (singleton) do nothing"""


def _extraction(row: asyncpg.Record | None) -> ExtractionSettings:
    if row is None:
        return ExtractionSettings(None, None, None, None, None, None, None)
    return ExtractionSettings(
        model=row["model"],
        reasoning_effort=row["reasoning_effort"],
        guidance_draft=row["guidance_draft"],
        guidance_published=row["guidance_published"],
        draft_saved_at=row["guidance_draft_saved_at"],
        published_at=row["guidance_published_at"],
        updated_at=row["updated_at"],
    )


async def load_extraction(db: Queryable) -> ExtractionSettings:
    async with translated(Unavailable, "extraction settings read"):
        return _extraction(await db.fetchrow(_EXTRACTION))


async def _write_extraction(
    pool: asyncpg.Pool,
    sql: str,
    args: tuple[Any, ...],
    *,
    actor: str,
    action: str,
    fields: tuple[str, ...],
) -> ExtractionSettings:
    async with (
        translated(PersistFailed, "extraction settings write"),
        pool.acquire() as conn,
        conn.transaction(),
    ):
        await conn.execute(_UPSERT_ROW)
        await conn.execute(
            f"update {_S}.memory_extraction_settings set {sql}, updated_at = now()", *args
        )
        await _record(conn, actor, None, action, fields)
        return _extraction(await conn.fetchrow(_EXTRACTION))


async def save_guidance_draft(pool: asyncpg.Pool, text: str, actor: str) -> ExtractionSettings:
    """Store a draft; it never runs until published."""
    sql = "guidance_draft = $1, guidance_draft_saved_at = now()"
    return await _write_extraction(
        pool, sql, (text,), actor=actor, action="save", fields=("guidanceDraft",)
    )


async def publish_guidance(pool: asyncpg.Pool, actor: str) -> ExtractionSettings:
    """Publish the current draft; blank or missing text publishes the built-in guidance."""
    async with (
        translated(PersistFailed, "guidance publish"),
        pool.acquire() as conn,
        conn.transaction(),
    ):
        await conn.execute(_UPSERT_ROW)
        # the draft is read under the row lock so a concurrent draft save cannot slip between
        draft = await conn.fetchval(
            f"select guidance_draft from {_S}.memory_extraction_settings for update"
        )
        await conn.execute(
            f"update {_S}.memory_extraction_settings set guidance_published = $1,"
            " guidance_published_at = now(), updated_at = now()",
            published_guidance(draft),
        )
        await _record(conn, actor, None, "publish", ("guidancePublished",))
        return _extraction(await conn.fetchrow(_EXTRACTION))


async def reset_guidance(pool: asyncpg.Pool, actor: str) -> ExtractionSettings:
    """Unpublish and drop the draft: the next extraction uses the built-in guidance."""
    sql = (
        "guidance_draft = null, guidance_published = null,"
        " guidance_draft_saved_at = null, guidance_published_at = null"
    )
    fields = ("guidanceDraft", "guidancePublished")
    return await _write_extraction(pool, sql, (), actor=actor, action="reset", fields=fields)


async def save_model_selection(
    pool: asyncpg.Pool, update: ModelSelectionUpdate, actor: str
) -> ExtractionSettings:
    """Store the model and/or reasoning effort the extraction reads first (None clears)."""
    if not update.fields:
        return await load_extraction(pool)
    sql = (
        "model = case when $1 then $2 else model end,"
        " reasoning_effort = case when $3 then $4 else reasoning_effort end"
    )
    args = (
        "model" in update.fields,
        update.model,
        "reasoningEffort" in update.fields,
        update.reasoning_effort,
    )
    fields = tuple(sorted(update.fields))
    return await _write_extraction(pool, sql, args, actor=actor, action="save", fields=fields)


async def list_activity(
    db: Queryable, agent_id: str | None, limit: int
) -> tuple[ActivityEntry, ...]:
    """Newest first; `agent_id` None lists every entry, shared extraction changes included."""
    async with translated(Unavailable, "activity read"):
        rows = await db.fetch(
            f"""select id, at, actor, agent_id, action, fields
            from {_S}.memory_settings_activity
            where $1::text is null or agent_id = $1 order by id desc limit $2""",
            agent_id,
            limit,
        )
    return tuple(
        ActivityEntry(r["id"], r["at"], r["actor"], r["agent_id"], r["action"], tuple(r["fields"]))
        for r in rows
    )
