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
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
)

from memory.config import REASONING_EFFORTS, ConfigError
from memory.contract import InvalidRequest, limits
from memory.settings._brief import NO_BRIEF, Brief, brief_items

SettingField = Literal["read", "save", "instructions", "remember", "forget"]
Origin = Literal["studio", "code", "default"]
BindingSource = Literal["code", "studio"]
BindingOutcome = Literal["bound", "same", "conflict"]

SETTING_FIELDS: tuple[SettingField, ...] = get_args(SettingField)
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
ModelName = Annotated[
    str, StringConstraints(min_length=1, max_length=MAX_MODEL_CHARS), AfterValidator(_check_text)
]


def _problem(field: str, rule: str) -> InvalidRequest:
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


@dataclass(frozen=True, slots=True)
class Overrides:
    """Values saved through the settings API; `None` means "no override for this field"."""

    read: bool | None = None
    save: bool | None = None
    instructions: str | None = None
    remember: tuple[str, ...] | None = None
    forget: tuple[str, ...] | None = None

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


@dataclass(frozen=True, slots=True)
class Effective:
    """The value each field resolves to, and where that value came from."""

    read: bool
    save: bool
    instructions: str | None
    remember: tuple[str, ...]
    forget: tuple[str, ...]
    origins: Origins


@dataclass(frozen=True, slots=True)
class CallSettings:
    """Everything a call reads once when it opens; `binding` None means no memory."""

    read: bool
    save: bool
    instructions: str | None
    binding: Binding | None
    brief: Brief = NO_BRIEF


def _pick(override: Any, code: Any, default: Any) -> tuple[Any, Origin]:
    if override is not None:
        return override, "studio"
    if code is not None:
        return code, "code"
    return default, "default"


def resolve(overrides: Overrides, code: CodeDefaults) -> Effective:
    """Override, else code, else default (read and save off, no instructions)."""
    read, read_origin = _pick(overrides.read, code.read, False)
    save, save_origin = _pick(overrides.save, code.save, False)
    text, text_origin = _pick(overrides.instructions, code.instructions, None)
    remember, remember_origin = _pick(overrides.remember, code.remember, ())
    forget, forget_origin = _pick(overrides.forget, code.forget, ())
    origins = Origins(read_origin, save_origin, text_origin, remember_origin, forget_origin)
    return Effective(read, save, text, remember, forget, origins)


def call_settings(
    overrides: Overrides, code: CodeDefaults, binding: Binding | None
) -> CallSettings:
    effective = resolve(overrides, code)
    brief = Brief(effective.remember, effective.forget)
    return CallSettings(effective.read, effective.save, effective.instructions, binding, brief)


def decide_binding(bound_key: str | None, offered_key: str) -> BindingOutcome:
    """A first key binds; the same key again is fine; any other key conflicts."""
    if bound_key is None:
        return "bound"
    return "same" if bound_key == offered_key else "conflict"


@dataclass(frozen=True, slots=True)
class SettingsUpdate:
    """A validated settings PUT: the overrides it sets and the identity key it offers."""

    overrides: Overrides
    identity_key: str | None

    def field_names(self) -> tuple[str, ...]:
        """The wire names of every field the request set, for the activity log."""
        names: tuple[str, ...] = self.overrides.present()
        return (*names, "identityKey") if self.identity_key is not None else names


class SettingsBody(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    read: bool = False
    save: bool = False
    instructions: Instructions = ""
    remember: list[Any] = []
    forget: list[Any] = []
    identity_key: IdentityKey = Field(default="", alias="identityKey")


_RULES = {
    "extra_forbidden": "is not a known field",
    "bool_type": "must be a boolean",
    "list_type": "must be a list of strings",
    "string_type": "must be a string",
    "string_unicode": "must be valid Unicode text",
    "model_type": "must be a JSON object",
    "dict_type": "must be a JSON object",
}


def _invalid(exc: ValidationError) -> InvalidRequest:
    """The first validation error, as a message naming the field and the rule."""
    error = exc.errors(include_url=False)[0]
    field = ".".join(str(part) for part in error["loc"]) or "body"
    ctx = error.get("ctx", {})
    kind = error["type"]
    if kind == "string_too_short":
        rule = f"must have at least {ctx['min_length']} character(s)"
    elif kind == "string_too_long":
        rule = f"must have at most {ctx['max_length']:,} characters"
    elif kind == "value_error":
        rule = str(ctx.get("error", error["msg"]))
    else:
        rule = _RULES.get(kind, error["msg"])
    return _problem(field, rule)


def parse_update(body: object) -> SettingsUpdate:
    """Validate a settings PUT body: any subset of the setting fields and identityKey."""
    try:
        parsed = SettingsBody.model_validate(body)
    except ValidationError as exc:
        raise _invalid(exc) from None
    given = parsed.model_fields_set
    return SettingsUpdate(
        overrides=Overrides(
            read=parsed.read if "read" in given else None,
            save=parsed.save if "save" in given else None,
            instructions=parsed.instructions if "instructions" in given else None,
            remember=brief_items(parsed.remember, "remember") if "remember" in given else None,
            forget=brief_items(parsed.forget, "forget") if "forget" in given else None,
        ),
        identity_key=parsed.identity_key if "identity_key" in given else None,
    )


def parse_reset_field(value: str | None) -> SettingField | None:
    """The `field` of a settings reset: one of the setting fields, or None for all of them."""
    if value is None:
        return None
    for name in SETTING_FIELDS:
        if value == name:
            return name
    raise _problem("field", f"must be one of {', '.join(SETTING_FIELDS)}")


class DraftBody(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    text: Guidance


def parse_draft(body: object) -> str:
    """A guidance draft: any text up to 20,000 characters, blank included."""
    try:
        return DraftBody.model_validate(body).text
    except ValidationError as exc:
        raise _invalid(exc) from None


def published_guidance(draft: str | None) -> str | None:
    """What publishing a draft stores: blank or missing text means the built-in guidance."""
    if draft is None or not draft.strip():
        return None
    return draft


@dataclass(frozen=True, slots=True)
class ModelSelectionUpdate:
    """A validated model-selection PUT; `fields` lists what it sets (None clears a value)."""

    fields: frozenset[str]
    model: str | None
    reasoning_effort: str | None


def _check_effort(value: str) -> str:
    if value not in REASONING_EFFORTS:
        raise ValueError(f"must be one of {', '.join(REASONING_EFFORTS)}")
    return value


class ModelBody(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    model: ModelName | None = None
    reasoning_effort: Annotated[str, AfterValidator(_check_effort)] | None = Field(
        default=None, alias="reasoningEffort"
    )


def parse_model_selection(body: object) -> ModelSelectionUpdate:
    """Validate a model-selection PUT: any subset of model and reasoningEffort (null clears)."""
    try:
        parsed = ModelBody.model_validate(body)
    except ValidationError as exc:
        raise _invalid(exc) from None
    wire = {"model": "model", "reasoning_effort": "reasoningEffort"}
    return ModelSelectionUpdate(
        fields=frozenset(wire[name] for name in parsed.model_fields_set),
        model=parsed.model,
        reasoning_effort=parsed.reasoning_effort,
    )
