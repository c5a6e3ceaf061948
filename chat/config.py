"""The chat wire's configuration: the conversation model and the tool loop's bound."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

DEFAULT_MODEL: Final = "gpt-4.1-mini"
DEFAULT_TIMEOUT_SECONDS: Final = 30.0
DEFAULT_MAX_TOOL_STEPS: Final = 4
DEFAULT_LEASE_SECONDS: Final = 10.0
"""How long a session claim lasts unrenewed (`chat.session_lease`): how long a turn that died,
or lost its database, can keep its session busy."""


@dataclass(frozen=True, slots=True)
class ChatConfig:
    """`base_url` None: OpenAI. `max_tool_steps`: model requests that may call tools per turn.
    `lease_seconds`: a session claim's lease, renewed every third of it while the turn runs."""

    base_url: str | None = None
    api_key: str | None = None
    model: str = DEFAULT_MODEL
    timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS
    max_tool_steps: int = DEFAULT_MAX_TOOL_STEPS
    lease_seconds: float = DEFAULT_LEASE_SECONDS
