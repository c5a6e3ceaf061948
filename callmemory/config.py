"""What a call with memory reads from the environment: provider, deadlines, database limits.

Nothing here is about the conversation's own models: an agent that attaches memory brings its
own session. Malformed values raise `ConfigError` naming the variable.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from infra.database import PoolTimeouts
from memory import environment
from memory.config import MemoryConfig

RECALL_BUDGET_VAR = "CALL_RECALL_BUDGET_SECONDS"
SAVE_TIMEOUT_VAR = "CALL_SAVE_TIMEOUT_SECONDS"
DEFAULT_RECALL_BUDGET_SECONDS = 0.35
SAVE_TIMEOUT_OVER_EXTRACTION = 10.0
SHUTDOWN_PROCESS_TIMEOUT_MARGIN = 15.0
"""How much longer than the save's timeout a job process is given to end once stopped."""


@dataclass(frozen=True, slots=True)
class CallConfig:
    memory: MemoryConfig = field(default_factory=MemoryConfig)
    recall_budget_seconds: float = DEFAULT_RECALL_BUDGET_SECONDS  # the pre-greeting deadline
    save_timeout_seconds: float = MemoryConfig().timeout_seconds + SAVE_TIMEOUT_OVER_EXTRACTION
    database: PoolTimeouts = field(default_factory=PoolTimeouts)

    @property
    def shutdown_process_timeout(self) -> float:
        """livekit's `shutdown_process_timeout` for a server whose jobs save at close.

        Above the save's whole bound, so a stuck save fails by itself (`save_timeout`) before
        livekit gives up on the job process.
        """
        return self.save_timeout_seconds + SHUTDOWN_PROCESS_TIMEOUT_MARGIN


def load_call_config(env: Mapping[str, str] | None = None) -> CallConfig:
    """The call's configuration from the one settings model (the process environment by default)."""
    return call_config(environment.read(env))


def call_config(env: environment.Environment) -> CallConfig:
    memory = MemoryConfig.from_environment(env)
    save_timeout = env.call_save_timeout_seconds or (
        memory.timeout_seconds + SAVE_TIMEOUT_OVER_EXTRACTION
    )
    return CallConfig(
        memory=memory,
        recall_budget_seconds=env.call_recall_budget_seconds,
        save_timeout_seconds=save_timeout,
        database=PoolTimeouts.from_environment(env),
    )
