"""prometheus_client's multiprocess directory, made to exist before a metric is created.

prometheus_client reads `PROMETHEUS_MULTIPROC_DIR` itself when a metric is created, which is
at the import of the modules that define them, and fails with a bare `FileNotFoundError` when
the directory is missing. Each of those modules calls `ensure_multiprocess_dir()` first, so a
configured directory that does not exist yet is created (livekit empties it at worker start
anyway). This is the one read of the environment below `callmemory`: the variable belongs to
prometheus_client, and is read here at the moment the library reads it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Final

VAR: Final = "PROMETHEUS_MULTIPROC_DIR"


def ensure_multiprocess_dir() -> None:
    """Create the configured directory (and its parents) if it is missing; no-op when unset."""
    configured = os.environ.get(VAR)
    if not configured:
        return
    path = Path(configured)
    if path.exists() and not path.is_dir():
        raise NotADirectoryError(f"{VAR}: {configured} exists and is not a directory")
    path.mkdir(parents=True, exist_ok=True)
