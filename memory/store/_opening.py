"""A call's opening in one statement: settings, the identity chosen, recall (migration 0021).

`stackbone_platform.call_opening` reads the agent's overrides and binding with the capability
check, picks the user id offered under the bound key and, when reading resolves on, recalls
that person: one round trip once the caller is on the line. Which user id each key names is
decided by the caller's pure identity rules (`lifecycle.identity`); the function only looks up
the bound key among them. The settings arrive first as a notice, the moment the function read
them (`on_settings`), and again in the first row: a caller whose recall is late still knows its
call's settings. The agent's published prompt (migration 0034) comes in the same statement,
ahead of the opening, as a row and a notice of its own: the call's snapshot holds it too.
When it recalled someone, the same statement appends the read's record (migration 0032: the
job as reader, channel `voice`, route `call_opening`, the counts recalled), so recording the
read costs no round trip before the greeting.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

import asyncpg
from pydantic import BaseModel, ConfigDict, ValidationError

from memory.contract import CapabilityUnavailable, Recall, SchemaMissing, Unavailable
from memory.settings import Binding, CallSettings, CodeDefaults, Overrides, call_settings
from memory.store._db_errors import translated
from memory.store._facts import CAPABILITY, decode_recall

_S = "stackbone_platform"
NOTICE = "call_opening.settings"
PROMPT_NOTICE = "call_opening.prompt"
PROMPT_ROW = -2
# the agent's published prompt first (migration 0034: a row of its own, and a notice the moment
# it is read), then the opening itself: still one statement, one round trip
# the read's record: written once the statement's rows are out (a data-modifying CTE runs to
# completion after the query), only when the function recalled someone (a user id under the
# bound key, reading resolved on, the schema capable), with the counts it recalled. Its commit
# does not wait for the WAL to reach the disk (`synchronous_commit` off for this statement's
# transaction only): the greeting is not held for a flush (~10 ms on the development machine,
# bench/opening_reads_bench.py); a crash in the next fraction of a second may lose the record.
_READ = f"""r as (insert into {_S}.memory_reads (agent_id, user_id, reader, channel, route,
        returned)
    select $1, h.id, $7, 'voice', 'call_opening', jsonb_build_object(
            'facts', (select count(*) from o where o.kind = 0),
            'calls', (select count(*) from o where o.kind = 1))
      from o h cross join (select set_config('synchronous_commit', 'off', true)) as lazy
      where h.kind = -1 and h.id is not null
        and coalesce((h.body::jsonb ->> 'read')::boolean, $3, false)
        and (h.body::jsonb ->> 'schema_ok')::boolean
        and (h.body::jsonb ->> 'capability_ok')::boolean)"""
OPENING = (
    f"with o as materialized (select * from {_S}.call_opening($1, $2, $3, $4, $5, $6)), {_READ}"
    f" select {PROMPT_ROW}, null::bigint, null::text, {_S}.call_prompt($1), null::timestamptz,"
    " null::timestamptz, null::double precision, null::text, null::text, null::text"
    " union all"
    " select kind, seq, id, body, first_at, second_at, duration_seconds, outcome, run_id, source"
    " from o"
)

SettingsSeen = Callable[[CallSettings], None]


class _Prompt(BaseModel):
    """The prompt notice: the agent's published prompt (None: the code's instructions)."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    prompt: str | None = None


class _StoredJson(BaseModel):
    """The settings the function sends (overrides, binding, capability check)."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    read: bool | None = None
    save: bool | None = None
    instructions: str | None = None
    remember: list[str] | None = None
    forget: list[str] | None = None
    time_zone: str | None = None
    identity_key: str | None = None
    source: Literal["code", "studio"] | None = None
    fixed_at: datetime | None = None
    schema_ok: bool
    capability_ok: bool

    def settings(self, code: CodeDefaults) -> CallSettings:
        overrides = Overrides(
            self.read,
            self.save,
            self.instructions,
            None if self.remember is None else tuple(self.remember),
            None if self.forget is None else tuple(self.forget),
            self.time_zone,
        )
        binding = None
        if self.identity_key is not None and self.source is not None and self.fixed_at:
            binding = Binding(self.identity_key, self.source, self.fixed_at)
        return call_settings(overrides, code, binding)

    def capability_error(self) -> str | None:
        if not self.schema_ok:
            return SchemaMissing.code
        return None if self.capability_ok else CapabilityUnavailable.code


@dataclass(frozen=True, slots=True)
class Opened:
    """What the opening statement found."""

    settings: CallSettings
    user_id: str | None  # the user id offered under the bound key (None: none offered)
    recall: Recall | None  # None: not read (read off, no identity, or not capable)
    capability_error: str | None = None  # the code recall would have failed with


def _parse(text: str) -> _StoredJson:
    try:
        return _StoredJson.model_validate_json(text)
    except ValidationError:
        raise Unavailable("call opening: the settings could not be read") from None


async def open_call(
    pool: asyncpg.Pool,
    agent_id: str,
    code: CodeDefaults,
    offered: Mapping[str, str],
    calls: int,
    *,
    on_settings: SettingsSeen | None = None,
    reader: str | None = None,
) -> Opened:
    """The opening statement; `offered`: each identity key the caller offers -> its user id.

    `on_settings` gets the call's settings as soon as the server read them (before recall);
    `reader` names who read in the read's record (the LiveKit job; None: unknown).
    Raises `Unavailable` (or `SchemaMissing` without migration 0021) when it fails.
    """

    prompt: list[str | None] = [None]  # the published prompt, once its notice came

    def seen(_: object, message: asyncpg.PostgresLogMessage) -> None:
        if on_settings is None or not message.detail:
            return
        with contextlib.suppress(ValidationError):  # the row says it again, or fails
            if message.message == PROMPT_NOTICE:
                prompt[0] = _Prompt.model_validate_json(message.detail).prompt
            elif message.message == NOTICE:
                settings = _StoredJson.model_validate_json(message.detail).settings(code)
                on_settings(dataclasses.replace(settings, prompt=prompt[0]))

    keys, users = list(offered), list(offered.values())
    args = (agent_id, CAPABILITY, code.read, keys, users, calls, reader)
    async with translated(Unavailable, "call opening"), pool.acquire() as conn:
        conn.add_log_listener(seen)
        try:
            rows = await conn.fetch(OPENING, *args)
        except asyncpg.UndefinedFunctionError:
            raise SchemaMissing("the call opening migration (0021) has not been applied") from None
        finally:
            conn.remove_log_listener(seen)
    head = next((r for r in rows if r[0] == -1), None)
    if head is None:
        raise Unavailable("call opening: no settings row")
    stored = _parse(head[3])
    published = next((r[3] for r in rows if r[0] == PROMPT_ROW), None)
    settings = dataclasses.replace(stored.settings(code), prompt=published)
    error = stored.capability_error()
    read = settings.read and error is None and head[2] is not None
    recall = decode_recall([r for r in rows if r[0] >= 0]) if read else None
    return Opened(settings, head[2], recall, error)
