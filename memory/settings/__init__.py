"""Per-agent memory settings as plain values: resolution (override, code, default), the
fixed identity binding, the extraction brief, and the parsing of settings bodies.
"""

from memory.settings._agent_settings import (
    SETTING_FIELDS,
    Binding,
    BindingOutcome,
    BindingSource,
    CallSettings,
    CodeDefaults,
    Overrides,
    SettingField,
    call_settings,
    decide_binding,
    resolve,
    wire_name,
)
from memory.settings._bodies import (
    DraftBody,
    ModelBody,
    ModelSelectionUpdate,
    SettingsBody,
    SettingsUpdate,
    parse_draft,
    parse_model_selection,
    parse_reset_field,
    parse_update,
    published_guidance,
)
from memory.settings._brief import NO_BRIEF, Brief, parse_brief

__all__ = [
    "NO_BRIEF",
    "SETTING_FIELDS",
    "Binding",
    "BindingOutcome",
    "BindingSource",
    "Brief",
    "CallSettings",
    "CodeDefaults",
    "DraftBody",
    "ModelBody",
    "ModelSelectionUpdate",
    "Overrides",
    "SettingField",
    "SettingsBody",
    "SettingsUpdate",
    "call_settings",
    "decide_binding",
    "parse_brief",
    "parse_draft",
    "parse_model_selection",
    "parse_reset_field",
    "parse_update",
    "published_guidance",
    "resolve",
    "wire_name",
]
