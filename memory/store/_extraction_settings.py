"""Postgres access for the extraction settings shared by all agents: guidance and model.

A saved draft never runs; publishing copies it (blank means the built-in guidance); reset
returns to the built-in guidance. The memory core reads the published text and the stored
model selection with the rest of an add's snapshot (`memory.store`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

import asyncpg

from memory.contract import PersistFailed, Unavailable
from memory.settings import ModelSelectionUpdate, published_guidance
from memory.store._activity import Queryable, record_activity
from memory.store._db_errors import translated

_S = "stackbone_platform"


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
        await record_activity(conn, actor, None, action, fields)
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
        await record_activity(conn, actor, None, "publish", ("guidancePublished",))
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
