"""Small helpers shared by the memory tests: direct reads of what is stored."""

from __future__ import annotations

from typing import Any

import asyncpg


async def stored(pool: asyncpg.Pool, agent_id: str, user_id: str) -> dict[str, Any]:
    """Everything stored for one pair, read straight from the tables."""
    facts = await pool.fetch(
        "select id, content, created_at, updated_at from stackbone_platform.memory_facts"
        " where agent_id = $1 and user_id = $2 order by seq",
        agent_id,
        user_id,
    )
    calls = await pool.fetch(
        "select id, summary from stackbone_platform.memory_calls"
        " where agent_id = $1 and user_id = $2 order by seq",
        agent_id,
        user_id,
    )
    revision = await pool.fetchval(
        "select revision from stackbone_platform.memory_revisions"
        " where agent_id = $1 and user_id = $2",
        agent_id,
        user_id,
    )
    return {
        "facts": [dict(r) for r in facts],
        "calls": [dict(r) for r in calls],
        "revision": revision,
    }


def add_op(content: str) -> dict[str, Any]:
    return {"op": "add", "handle": None, "content": content}


def update_op(handle: str, content: str) -> dict[str, Any]:
    return {"op": "update", "handle": handle, "content": content}


def delete_op(handle: str) -> dict[str, Any]:
    return {"op": "delete", "handle": handle, "content": None}
