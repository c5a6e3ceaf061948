"""`.env.local`: the variables a developer keeps beside the project, completing the process
environment before anything reads it (the real environment wins over the file)."""

from __future__ import annotations

import os
from pathlib import Path

ENV_LOCAL = Path(".env.local")


def load_env_local(path: Path = ENV_LOCAL, environ: dict[str, str] | None = None) -> list[str]:
    """Export `.env.local`'s variables the real environment does not set; returns their names.

    Exported, not only read, so LiveKit job processes (which inherit the environment) and
    livekit-agents' own `LIVEKIT_*` reading see them too.
    """
    from dotenv import dotenv_values  # noqa: PLC0415  (`.env.local` only)

    target = os.environ if environ is None else environ
    if not path.is_file():
        return []
    added = []
    for name, value in dotenv_values(path).items():
        if value is not None and name not in target:
            target[name] = value
            added.append(name)
    return added
