"""The chat wire's configuration: the conversation model and the tool loop's bound."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

DEFAULT_MODEL: Final = "gpt-4.1-mini"
DEFAULT_TIMEOUT_SECONDS: Final = 30.0
DEFAULT_MAX_TOOL_STEPS: Final = 4


@dataclass(frozen=True, slots=True)
class ChatConfig:
    """`base_url` None: OpenAI. `max_tool_steps`: model requests that may call tools per turn."""

    base_url: str | None = None
    api_key: str | None = None
    model: str = DEFAULT_MODEL
    timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS
    max_tool_steps: int = DEFAULT_MAX_TOOL_STEPS

    @property
    def lease_seconds(self) -> float:
        """How long a session stays claimed by a turn that never released it (a crash): longer
        than any turn can run (each model request, plus a save's extraction per step)."""
        return (self.timeout_seconds * 2) * (self.max_tool_steps + 1) + 60.0
