"""Which memory tools a text turn offers, and for whom: `chat.bind_turn` with plain values, and
how `CallerMemory` recognises a LiveKit text session from its room options."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from livekit.agents.voice.room_io import AudioInputOptions, RoomInputOptions, RoomOptions

from callmemory.text import TextMemory, is_text_session
from chat import attribute_identities, bind_turn
from chat.identities import IdentitiesRule
from memory.config import ConfigError
from memory.settings import Binding, CallSettings, CodeDefaults

AT = datetime(2026, 1, 1, tzinfo=UTC)


def settings(read: bool, save: bool, key: str | None = "customerId") -> CallSettings:
    binding = None if key is None else Binding(key, "code", AT)
    return CallSettings(read=read, save=save, instructions="Keep preferences.", binding=binding)


@pytest.mark.parametrize(
    ("read", "save", "tools"),
    [
        (False, False, None),
        (True, False, ("memory_read",)),
        (False, True, ("memory_save",)),
        (True, True, ("memory_read", "memory_save")),
    ],
)
def test_the_settings_table(read: bool, save: bool, tools: tuple[str, ...] | None) -> None:
    bound = bind_turn("desk", settings(read, save), {"customerId": "crm/1"})
    assert (None if bound.scope is None else bound.scope.offered) == tools
    assert bound.reason is None
    if bound.scope is not None:
        assert (bound.scope.agent_id, bound.scope.user_id) == ("desk", "crm/1")


@pytest.mark.parametrize(
    ("given", "key", "reason"),
    [
        ({"email": "ada@example.com"}, "customerId", "identity_missing"),
        ({"customerId": "+34600111222"}, "phoneNumber", "identity_missing"),  # never a phone
        ({"customerId": "crm/1"}, None, "no_binding"),
        (IdentitiesRule.VALUE_TOO_LONG, "customerId", "identity_value_too_long"),
    ],
)
def test_without_a_customer_no_tools_and_a_reason(
    given: dict[str, str] | IdentitiesRule, key: str | None, reason: str
) -> None:
    bound = bind_turn("desk", settings(True, True, key), given)
    assert (bound.scope, bound.reason) == (None, reason)


def test_unreadable_settings_mean_no_tools() -> None:
    bound = bind_turn("desk", None, {"customerId": "crm/1"})
    assert (bound.scope, bound.reason) == (None, "settings_unavailable")


def test_attributes_are_read_by_the_identities_rules() -> None:
    assert attribute_identities({"contact.email": " Ada@x "}) == {"contact.email": " Ada@x "}
    assert attribute_identities({"customerId": ""}) == IdentitiesRule.VALUE_EMPTY
    assert attribute_identities({"x" * 101: "v"}) == IdentitiesRule.NAME_TOO_LONG
    fields = {f"f{i}": "v" for i in range(32)}
    assert attribute_identities(fields) == fields
    assert attribute_identities({**fields, "one": "more"}) == IdentitiesRule.TOO_MANY


def test_text_mode_is_room_options_without_audio_input() -> None:
    assert is_text_session({"room_options": RoomOptions(audio_input=False)})
    assert is_text_session({"room_options": RoomOptions(audio_input=False, audio_output=False)})
    assert not is_text_session({"room_options": RoomOptions()})
    assert not is_text_session({"room_options": RoomOptions(audio_input=AudioInputOptions())})
    assert not is_text_session({})
    with pytest.raises(ConfigError, match=r"room_input_options: .* room_options=RoomOptions"):
        is_text_session({"room_input_options": RoomInputOptions(audio_enabled=False)})


async def test_a_text_session_needs_text_input() -> None:
    unused: Any = None  # the room options are decided before the runtime or session is used
    text = TextMemory("desk", CodeDefaults(), unused, unused)
    wrapped = text.room_options(RoomOptions(audio_input=False))
    assert wrapped.get_text_input_options() is not None
    assert wrapped.get_audio_input_options() is None
    with pytest.raises(ConfigError, match=r"room_options\.text_input: a text session needs text"):
        text.room_options(RoomOptions(audio_input=False, text_input=False))
