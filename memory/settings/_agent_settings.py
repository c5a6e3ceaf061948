"""Per-agent memory settings as plain values: what each field resolves to, and why.

Every decision about settings lives here, free of I/O, so it can be tested with plain values:
resolving a field from its stored override, the agent's code declaration or the default;
validating what a settings request may change; and deciding whether an identity key may bind.
`memory.store` only reads and writes what these functions decide.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any, Literal, get_args

from pydantic import (
    AfterValidator,
    StringConstraints,
)

from memory.config import ConfigError
from memory.contract import InvalidRequest, limits, requests
from memory.settings._brief import NO_BRIEF, Brief, brief_items

SettingField = Literal["read", "save", "instructions", "remember", "forget", "time_zone"]
Origin = Literal["studio", "code", "default"]
BindingSource = Literal["code", "studio"]
BindingOutcome = Literal["bound", "same", "conflict"]

SETTING_FIELDS: tuple[SettingField, ...] = get_args(SettingField)
_WIRE: dict[str, str] = {"time_zone": "timeZone"}  # the JSON name where it differs


def wire_name(field: SettingField) -> str:
    """The field's name in JSON bodies, answers and the activity log (`time_zone`: `timeZone`)."""
    return _WIRE.get(field, field)


MIN_IDENTITY_KEY_CHARS = 1
MAX_IDENTITY_KEY_CHARS = 100
MAX_GUIDANCE_CHARS = limits.MAX_INSTRUCTIONS_CHARS
MAX_MODEL_CHARS = 200


def _check_text(value: str) -> str:
    if "\x00" in value:
        raise ValueError("must not contain NUL characters")
    return value


Instructions = Annotated[
    str,
    StringConstraints(
        min_length=limits.MIN_INSTRUCTIONS_CHARS, max_length=limits.MAX_INSTRUCTIONS_CHARS
    ),
    AfterValidator(_check_text),
]
IdentityKey = Annotated[
    str,
    StringConstraints(min_length=MIN_IDENTITY_KEY_CHARS, max_length=MAX_IDENTITY_KEY_CHARS),
    AfterValidator(_check_text),
]
Guidance = Annotated[
    str, StringConstraints(max_length=MAX_GUIDANCE_CHARS), AfterValidator(_check_text)
]


def _check_time_zone(value: str) -> str:
    try:
        requests.time_zone(value)
    except InvalidRequest:
        raise ValueError(requests.TIME_ZONE_RULE) from None
    return value


TimeZoneName = Annotated[str, AfterValidator(_check_time_zone)]
ModelName = Annotated[
    str, StringConstraints(min_length=1, max_length=MAX_MODEL_CHARS), AfterValidator(_check_text)
]


def problem(field: str, rule: str) -> InvalidRequest:
    return InvalidRequest(f"{field}: {rule}", field=field)


@dataclass(frozen=True, slots=True)
class CodeDefaults:
    """Memory defaults an agent declares in code; `None` means "not declared"."""

    read: bool | None = None
    save: bool | None = None
    instructions: str | None = None
    identity_key: str | None = None
    remember: tuple[str, ...] | None = None
    forget: tuple[str, ...] | None = None
    time_zone: str | None = None

    def __post_init__(self) -> None:
        for name in ("remember", "forget"):
            if (items := getattr(self, name)) is not None:
                try:
                    brief_items(items, f"memory {name}")
                except InvalidRequest as problem:
                    raise ConfigError(str(problem)) from None
        text = self.instructions
        if text is not None and not (
            limits.MIN_INSTRUCTIONS_CHARS <= len(text) <= limits.MAX_INSTRUCTIONS_CHARS
        ):
            raise ConfigError("memory instructions must have 1 to 20,000 characters")
        key = self.identity_key
        if key is not None and not MIN_IDENTITY_KEY_CHARS <= len(key) <= MAX_IDENTITY_KEY_CHARS:
            raise ConfigError("memory identity_key must have 1 to 100 characters")
        try:
            requests.time_zone(self.time_zone, "memory time_zone")
        except InvalidRequest as problem:
            raise ConfigError(str(problem)) from None


@dataclass(frozen=True, slots=True)
class Overrides:
    """Values saved through the settings API; `None` means "no override for this field"."""

    read: bool | None = None
    save: bool | None = None
    instructions: str | None = None
    remember: tuple[str, ...] | None = None
    forget: tuple[str, ...] | None = None
    time_zone: str | None = None

    def present(self) -> tuple[SettingField, ...]:
        return tuple(name for name in SETTING_FIELDS if getattr(self, name) is not None)


@dataclass(frozen=True, slots=True)
class Binding:
    """The identity key fixed for an agent, for ever."""

    identity_key: str
    source: BindingSource
    fixed_at: datetime


@dataclass(frozen=True, slots=True)
class Origins:
    read: Origin
    save: Origin
    instructions: Origin
    remember: Origin
    forget: Origin
    time_zone: Origin


@dataclass(frozen=True, slots=True)
class Effective:
    """The value each field resolves to, and where that value came from."""

    read: bool
    save: bool
    instructions: str | None
    remember: tuple[str, ...]
    forget: tuple[str, ...]
    time_zone: str | None
    origins: Origins


@dataclass(frozen=True, slots=True)
class CallSettings:
    """Everything a call reads once when it opens; `binding` None means no memory."""

    read: bool
    save: bool
    instructions: str | None
    binding: Binding | None
    brief: Brief = NO_BRIEF
    time_zone: str | None = None
    prompt: str | None = None  # the agent's published conversation instruction (None: the code's)


def _pick(override: Any, code: Any, default: Any) -> tuple[Any, Origin]:
    if override is not None:
        return override, "studio"
    if code is not None:
        return code, "code"
    return default, "default"


def resolve(overrides: Overrides, code: CodeDefaults) -> Effective:
    """Override, else code, else default (read and save off, no instructions, no time zone)."""
    read, read_origin = _pick(overrides.read, code.read, False)
    save, save_origin = _pick(overrides.save, code.save, False)
    text, text_origin = _pick(overrides.instructions, code.instructions, None)
    remember, remember_origin = _pick(overrides.remember, code.remember, ())
    forget, forget_origin = _pick(overrides.forget, code.forget, ())
    zone, zone_origin = _pick(overrides.time_zone, code.time_zone, None)
    origins = Origins(
        read_origin, save_origin, text_origin, remember_origin, forget_origin, zone_origin
    )
    return Effective(read, save, text, remember, forget, zone, origins)


def call_settings(
    overrides: Overrides, code: CodeDefaults, binding: Binding | None
) -> CallSettings:
    effective = resolve(overrides, code)
    brief = Brief(effective.remember, effective.forget)
    return CallSettings(
        effective.read, effective.save, effective.instructions, binding, brief, effective.time_zone
    )


def decide_binding(bound_key: str | None, offered_key: str) -> BindingOutcome:
    """A first key binds; the same key again is fine; any other key conflicts."""
    if bound_key is None:
        return "bound"
    return "same" if bound_key == offered_key else "conflict"
