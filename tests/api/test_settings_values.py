"""Settings decisions as plain values: resolution, origins, body validation, binding."""

from __future__ import annotations

import pytest

from memory.config import ConfigError
from memory.contract._errors import InvalidRequest
from memory.settings import (
    CodeDefaults,
    Overrides,
    call_settings,
    decide_binding,
    parse_model_selection,
    parse_reset_field,
    parse_update,
    published_guidance,
    resolve,
)


class TestResolve:
    def test_defaults_when_nothing_is_declared(self) -> None:
        """Read and save are off and there are no instructions by default."""
        effective = resolve(Overrides(), CodeDefaults())
        assert (effective.read, effective.save, effective.instructions) == (False, False, None)
        assert (effective.origins.read, effective.origins.instructions) == ("default", "default")

    def test_code_beats_default_and_override_beats_code(self) -> None:
        """Each field takes the override, else the code value, else the default."""
        code = CodeDefaults(read=True, save=True, instructions="code")
        effective = resolve(Overrides(save=False, instructions="studio"), code)
        assert (effective.read, effective.save, effective.instructions) == (True, False, "studio")
        assert (effective.origins.read, effective.origins.save) == ("code", "studio")
        assert effective.origins.instructions == "studio"

    def test_explicit_false_in_code_is_code_origin(self) -> None:
        """A code `False` is a declaration, not a missing value."""
        assert resolve(Overrides(), CodeDefaults(read=False)).origins.read == "code"

    def test_call_settings_carries_the_binding(self) -> None:
        settings = call_settings(Overrides(read=True), CodeDefaults(save=True), None)
        assert (settings.read, settings.save, settings.binding) == (True, True, None)


class TestParseUpdate:
    def test_only_fields_sent_are_set(self) -> None:
        update = parse_update({"save": False})
        assert update.overrides == Overrides(save=False)
        assert update.identity_key is None
        assert update.field_names() == ("save",)

    def test_empty_body_changes_nothing(self) -> None:
        update = parse_update({})
        assert update.overrides == Overrides() and update.field_names() == ()

    def test_identity_key_is_named_on_the_wire(self) -> None:
        assert parse_update({"identityKey": "contact.email"}).field_names() == ("identityKey",)

    @pytest.mark.parametrize(
        ("body", "field"),
        [
            ({"read": 0}, "read"),
            ({"instructions": "\ud800"}, "instructions"),
            ({"identityKey": "k" * 101}, "identityKey"),
            (None, "body"),
        ],
    )
    def test_rejections_name_the_field(self, body: object, field: str) -> None:
        with pytest.raises(InvalidRequest) as caught:
            parse_update(body)
        assert caught.value.field == field
        assert caught.value.message.startswith(f"{field}: ")


class TestSmallDecisions:
    def test_reset_field(self) -> None:
        assert parse_reset_field(None) is None
        assert parse_reset_field("save") == "save"
        with pytest.raises(InvalidRequest):
            parse_reset_field("Save")

    @pytest.mark.parametrize(
        ("bound", "offered", "outcome"),
        [(None, "email", "bound"), ("email", "email", "same"), ("email", "Email", "conflict")],
    )
    def test_binding(self, bound: str | None, offered: str, outcome: str) -> None:
        assert decide_binding(bound, offered) == outcome

    @pytest.mark.parametrize(
        ("draft", "published"), [(None, None), ("", None), (" \n", None), (" a ", " a ")]
    )
    def test_published_guidance(self, draft: str | None, published: str | None) -> None:
        assert published_guidance(draft) == published

    def test_model_selection_lists_fields_sent(self) -> None:
        update = parse_model_selection({"model": None})
        assert update.fields == frozenset({"model"}) and update.model is None

    @pytest.mark.parametrize(
        "defaults",
        [{"instructions": ""}, {"instructions": "x" * 20_001}, {"identity_key": ""}],
    )
    def test_code_declarations_are_checked_at_start_up(self, defaults: dict[str, str]) -> None:
        with pytest.raises(ConfigError):
            CodeDefaults(**defaults)  # type: ignore[arg-type]
