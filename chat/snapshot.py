"""The settings a turn started with, as plain JSON and back: a parked turn keeps them so its
continuation, however late and through however many pauses, runs with the same ones."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from memory.settings import Binding, Brief, CallSettings


def settings_json(settings: CallSettings) -> dict[str, Any]:
    binding = settings.binding
    return {
        "read": settings.read,
        "save": settings.save,
        "instructions": settings.instructions,
        "binding": None
        if binding is None
        else {
            "identityKey": binding.identity_key,
            "source": binding.source,
            "fixedAt": binding.fixed_at.isoformat(),
        },
        "remember": list(settings.brief.remember),
        "forget": list(settings.brief.forget),
        "timeZone": settings.time_zone,
        "prompt": settings.prompt,
    }


def settings_of(value: dict[str, Any]) -> CallSettings:
    bound = value["binding"]
    binding = (
        None
        if bound is None
        else Binding(
            bound["identityKey"], bound["source"], datetime.fromisoformat(bound["fixedAt"])
        )
    )
    return CallSettings(
        bool(value["read"]),
        bool(value["save"]),
        value["instructions"],
        binding,
        Brief(tuple(value["remember"]), tuple(value["forget"])),
        value["timeZone"],
        value.get("prompt"),  # rows parked before prompts were published have none
    )
