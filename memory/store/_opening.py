"""A call's opening in one statement: settings, the identity chosen, recall (migration 0021).

`stackbone_platform.call_opening` reads the agent's overrides and binding with the capability
check, picks the user id offered under the bound key and, when reading resolves on, recalls
that person: one round trip once the caller is on the line. Which user id each key names is
decided by the caller's pure identity rules (`lifecycle.identity`); the function only looks up
the bound key among them. The settings arrive first as a notice, the moment the function read
them (`on_settings`), and again in the first row: a caller whose recall is late still knows its
call's settings.
"""

from __future__ import annotations

import contextlib
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
OPENING = (
    "select kind, seq, id, body, first_at, second_at, duration_seconds, outcome, run_id, source"
    f" from {_S}.call_opening($1, $2, $3, $4, $5, $6)"
)

SettingsSeen = Callable[[CallSettings], None]


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
) -> Opened:
    """The opening statement; `offered`: each identity key the caller offers -> its user id.

    `on_settings` gets the call's settings as soon as the server read them (before recall).
    Raises `Unavailable` (or `SchemaMissing` without migration 0021) when it fails.
    """

    def seen(_: object, message: asyncpg.PostgresLogMessage) -> None:
        if on_settings is None or message.message != NOTICE or not message.detail:
            return
        with contextlib.suppress(ValidationError):  # the row says it again, or fails
            on_settings(_StoredJson.model_validate_json(message.detail).settings(code))

    keys, users = list(offered), list(offered.values())
    args = (agent_id, CAPABILITY, code.read, keys, users, calls)
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
    settings = stored.settings(code)
    error = stored.capability_error()
    read = settings.read and error is None and head[2] is not None
    recall = decode_recall([r for r in rows if r[0] != -1]) if read else None
    return Opened(settings, head[2], recall, error)
