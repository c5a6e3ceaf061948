"""Postgres access for per-agent memory settings: overrides and identity bindings.

The voice worker reads an agent's settings at every room open, so `load_call_settings` answers
with one query. Decisions (resolution, validation, binding) live in `memory.settings`; this
module only runs SQL and turns database errors into memory failures, once.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass

import asyncpg
import structlog

from infra.database import Executor
from memory.contract import Conflict, PersistFailed, Unavailable
from memory.settings import (
    SETTING_FIELDS,
    Binding,
    BindingOutcome,
    BindingSource,
    CallSettings,
    CodeDefaults,
    Overrides,
    SettingField,
    SettingsUpdate,
    call_settings,
    decide_binding,
)
from memory.store._activity import record_activity
from memory.store._db_errors import translated

log = structlog.get_logger(__name__)

Queryable = asyncpg.Pool | Executor
_S = "stackbone_platform"
CODE_ACTOR = "code"

_STORED = f"""select o.read, o.save, o.instructions, o.remember, o.forget, o.time_zone,
       b.identity_key, b.source, b.fixed_at, p.published as prompt
  from (select 1) as one
  left join {_S}.memory_agent_overrides o on o.agent_id = $1
  left join {_S}.memory_identity_bindings b on b.agent_id = $1
  left join {_S}.agent_prompts p on p.agent_id = $1"""


@dataclass(frozen=True, slots=True)
class StoredSettings:
    """An agent's stored overrides and identity binding."""

    overrides: Overrides
    binding: Binding | None


def _stored(row: asyncpg.Record) -> StoredSettings:
    overrides = Overrides(
        read=row["read"],
        save=row["save"],
        instructions=row["instructions"],
        remember=_items(row["remember"]),
        forget=_items(row["forget"]),
        time_zone=row["time_zone"],
    )
    binding = None
    if row["identity_key"] is not None:
        binding = Binding(row["identity_key"], row["source"], row["fixed_at"])
    return StoredSettings(overrides, binding)


def _items(value: list[str] | None) -> tuple[str, ...] | None:
    return None if value is None else tuple(value)


def _array(value: tuple[str, ...] | None) -> list[str] | None:
    return None if value is None else list(value)


async def load_settings(db: Queryable, agent_id: str) -> StoredSettings:
    """An agent's overrides and binding, in one query."""
    async with translated(Unavailable, "settings read"):
        row = await db.fetchrow(_STORED, agent_id)
    assert row is not None
    return _stored(row)


def with_columns(columns: str) -> str:
    """The settings read (agent id `$1`) with `columns` in front of its own."""
    return _STORED.replace("select ", f"select {columns}, ", 1)


def call_settings_of(row: asyncpg.Record, code: CodeDefaults) -> CallSettings:
    """The effective call settings from a row of the settings read, the agent's published
    prompt with them."""
    stored = _stored(row)
    settings = call_settings(stored.overrides, code, stored.binding)
    return dataclasses.replace(settings, prompt=row["prompt"])


async def load_call_settings(db: Queryable, agent_id: str, code: CodeDefaults) -> CallSettings:
    """Effective read/save/instructions, the identity binding and the published prompt, in
    one round trip."""
    async with translated(Unavailable, "settings read"):
        row = await db.fetchrow(_STORED, agent_id)
    assert row is not None
    return call_settings_of(row, code)


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
                  (agent_id, read, save, instructions, remember, forget, time_zone)
                values ($1, $2, $3, $4, $5, $6, $7) on conflict (agent_id) do update set
                  read = coalesce(excluded.read, o.read),
                  save = coalesce(excluded.save, o.save),
                  instructions = coalesce(excluded.instructions, o.instructions),
                  remember = coalesce(excluded.remember, o.remember),
                  forget = coalesce(excluded.forget, o.forget),
                  time_zone = coalesce(excluded.time_zone, o.time_zone),
                  updated_at = now()""",
                agent_id,
                update.overrides.read,
                update.overrides.save,
                update.overrides.instructions,
                _array(update.overrides.remember),
                _array(update.overrides.forget),
                update.overrides.time_zone,
            )
        if update.field_names():
            await record_activity(conn, actor, agent_id, "save", update.field_names())
        row = await conn.fetchrow(_STORED, agent_id)
    assert row is not None
    return _stored(row)


async def reset_settings(
    pool: asyncpg.Pool, agent_id: str, field: SettingField | None, actor: str
) -> StoredSettings:
    """Remove one override (or all of them) so code or the default shows through again."""
    fields: tuple[SettingField, ...] = SETTING_FIELDS if field is None else (field,)
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
            " and read is null and save is null and instructions is null"
            " and remember is null and forget is null and time_zone is null",
            agent_id,
        )
        await record_activity(conn, actor, agent_id, "reset", fields)
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
                await record_activity(conn, CODE_ACTOR, agent_id, "bind", ("identityKey",))
        outcomes[agent_id] = outcome
        if outcome == "conflict":
            log.error("memory.identity_binding_conflict", agent_id=agent_id, source="code")
        elif outcome == "bound":
            log.info("memory.identity_bound", agent_id=agent_id, source="code")
    return outcomes
