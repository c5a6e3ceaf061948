"""Per-person memory: facts and call records in Postgres, updated by one model call.

The public face is `memory.api` (`Memory`, `open_memory`), re-exported here with the
configuration. Inside, one room per concern, each with its own face: `memory.contract`
(values, limits, codes, validation), `memory.settings`, `memory.ops`, `memory.extraction`,
`memory.search` and `memory.store` (the SQL). Infrastructure (database, migrations, logs,
tracing, deadlines) lives below, in `infra`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memory.api import Memory, open_memory
    from memory.config import MemoryConfig

__all__ = ["Memory", "MemoryConfig", "open_memory"]

_HOMES = {"Memory": "memory.api", "open_memory": "memory.api", "MemoryConfig": "memory.config"}


def __getattr__(name: str) -> Any:
    """Import on first use, so a room of `memory` loads without the whole API."""
    if name in _HOMES:
        return getattr(importlib.import_module(_HOMES[name]), name)
    raise AttributeError(f"module 'memory' has no attribute {name!r}")
