"""What a call with memory reads from the environment: provider, deadlines, database limits.

Nothing here is about the conversation's own models: an agent that attaches memory brings its
own session. Malformed values raise `ConfigError` naming the variable.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field

from memory.config import ConfigError, MemoryConfig
from memory.database import PoolTimeouts

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


def seconds(env: Mapping[str, str], name: str, default: float) -> float:
    """A positive, finite number of seconds from `env[name]`, or `default` when unset."""
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(f"{name} must be a number of seconds") from None
    if not math.isfinite(value) or value <= 0:
        raise ConfigError(f"{name} must be a finite number greater than 0")
    return value


def load_call_config(env: Mapping[str, str] = os.environ) -> CallConfig:
    memory = MemoryConfig.from_env(env)
    save_timeout = seconds(
        env, SAVE_TIMEOUT_VAR, memory.timeout_seconds + SAVE_TIMEOUT_OVER_EXTRACTION
    )
    if save_timeout <= memory.timeout_seconds:
        raise ConfigError(f"{SAVE_TIMEOUT_VAR} must exceed STACKBONE_MEMORY_TIMEOUT_SECONDS")
    return CallConfig(
        memory=memory,
        recall_budget_seconds=seconds(env, RECALL_BUDGET_VAR, DEFAULT_RECALL_BUDGET_SECONDS),
        save_timeout_seconds=save_timeout,
        database=PoolTimeouts.from_env(env),
    )
