"""The settings request bodies: what a settings, guidance draft or model-selection request may
change, validated into plain values; the first problem names its field and rule."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError

from memory.config import REASONING_EFFORTS
from memory.contract import InvalidRequest
from memory.settings._agent_settings import (
    SETTING_FIELDS,
    Guidance,
    IdentityKey,
    Instructions,
    ModelName,
    Overrides,
    SettingField,
    TimeZoneName,
    problem,
    wire_name,
)
from memory.settings._brief import brief_items


@dataclass(frozen=True, slots=True)
class SettingsUpdate:
    """A validated settings PUT: the overrides it sets and the identity key it offers."""

    overrides: Overrides
    identity_key: str | None

    def field_names(self) -> tuple[str, ...]:
        """The wire names of every field the request set, for the activity log."""
        names = tuple(wire_name(name) for name in self.overrides.present())
        return (*names, "identityKey") if self.identity_key is not None else names


class SettingsBody(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    read: bool = False
    save: bool = False
    instructions: Instructions = ""
    remember: list[Any] = []
    forget: list[Any] = []
    identity_key: IdentityKey = Field(default="", alias="identityKey")
    time_zone: TimeZoneName = Field(default="UTC", alias="timeZone")


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
    return problem(field, rule)


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
            time_zone=parsed.time_zone if "time_zone" in given else None,
        ),
        identity_key=parsed.identity_key if "identity_key" in given else None,
    )


def parse_reset_field(value: str | None) -> SettingField | None:
    """The `field` of a settings reset: one of the setting fields by its JSON name, or None for
    all of them."""
    if value is None:
        return None
    for name in SETTING_FIELDS:
        if value == wire_name(name):
            return name
    names = ", ".join(wire_name(name) for name in SETTING_FIELDS)
    raise problem("field", f"must be one of {names}")


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
