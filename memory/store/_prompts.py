"""Postgres access for agents' conversation instructions (prompts): draft, publish, reset.

A saved draft runs only where a person tries it (the Playground); publishing copies it (blank
means the code's instructions); reset drops both. Every change is in the settings activity log
with who made it, never the text. Calls read the published text in their opening statement
(`memory.store._opening`), text turns with their settings (`memory.store._settings`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import asyncpg

from memory.contract import PersistFailed, Unavailable
from memory.settings._prompt import published_prompt
from memory.store._activity import Queryable, record_activity
from memory.store._db_errors import translated

_S = "stackbone_platform"


@dataclass(frozen=True, slots=True)
class StoredPrompt:
    """An agent's prompt row (all None: nothing saved, the code's instructions run)."""

    draft: str | None
    draft_saved_at: datetime | None
    published: str | None
    published_at: datetime | None
    published_by: str | None


NO_PROMPT = StoredPrompt(None, None, None, None, None)
_PROMPT = f"""select draft, draft_saved_at, published, published_at, published_by
  from {_S}.agent_prompts where agent_id = $1"""


def _prompt(row: asyncpg.Record | None) -> StoredPrompt:
    if row is None:
        return NO_PROMPT
    return StoredPrompt(
        row["draft"],
        row["draft_saved_at"],
        row["published"],
        row["published_at"],
        row["published_by"],
    )


async def load_prompt(db: Queryable, agent_id: str) -> StoredPrompt:
    async with translated(Unavailable, "prompt read"):
        return _prompt(await db.fetchrow(_PROMPT, agent_id))


async def save_prompt_draft(
    pool: asyncpg.Pool, agent_id: str, text: str, actor: str
) -> StoredPrompt:
    """Store a draft; only the Playground runs it until it is published."""
    async with (
        translated(PersistFailed, "prompt draft write"),
        pool.acquire() as conn,
        conn.transaction(),
    ):
        await conn.execute(
            f"""insert into {_S}.agent_prompts as p (agent_id, draft, draft_saved_at)
            values ($1, $2, now()) on conflict (agent_id) do update
            set draft = excluded.draft, draft_saved_at = now(), updated_at = now()""",
            agent_id,
            text,
        )
        await record_activity(conn, actor, agent_id, "save", ("promptDraft",))
        return _prompt(await conn.fetchrow(_PROMPT, agent_id))


async def publish_prompt(pool: asyncpg.Pool, agent_id: str, actor: str) -> StoredPrompt:
    """Publish the current draft (blank or none: the code's instructions); the next call and
    the next text turn run it, a call already open keeps the text it opened with."""
    async with (
        translated(PersistFailed, "prompt publish"),
        pool.acquire() as conn,
        conn.transaction(),
    ):
        await conn.execute(
            f"insert into {_S}.agent_prompts (agent_id) values ($1) on conflict do nothing",
            agent_id,
        )
        # the draft is read under the row lock so a concurrent draft save cannot slip between
        draft = await conn.fetchval(
            f"select draft from {_S}.agent_prompts where agent_id = $1 for update", agent_id
        )
        await conn.execute(
            f"""update {_S}.agent_prompts set published = $2, published_at = now(),
            published_by = $3, updated_at = now() where agent_id = $1""",
            agent_id,
            published_prompt(draft),
            actor,
        )
        await record_activity(conn, actor, agent_id, "publish", ("promptPublished",))
        return _prompt(await conn.fetchrow(_PROMPT, agent_id))


async def reset_prompt(pool: asyncpg.Pool, agent_id: str, actor: str) -> StoredPrompt:
    """Drop the draft and the published text: the code's instructions run again."""
    async with (
        translated(PersistFailed, "prompt reset"),
        pool.acquire() as conn,
        conn.transaction(),
    ):
        await conn.execute(f"delete from {_S}.agent_prompts where agent_id = $1", agent_id)
        fields = ("promptDraft", "promptPublished")
        await record_activity(conn, actor, agent_id, "reset", fields)
    return NO_PROMPT
