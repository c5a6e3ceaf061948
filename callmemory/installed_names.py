"""The top-level import names this package installs, and a check that each is ours.

The wheel installs eight top-level packages (`NAMES`, the include list of pyproject's
`[tool.setuptools.packages.find]`). A module or package of the same name earlier on
`sys.path` (an application's own `chat.py` or `memory.py` beside its agent) would be
imported instead of ours, and imports would fail in odd places. `import callmemory` runs
`shadowed()` first and logs one warning line per shadowed name, naming the module, the file
found and ours, so the cause is on screen before any later import error.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path

import structlog

log = structlog.get_logger(__name__)

NAMES = ("callmemory", "chat", "infra", "lifecycle", "memory", "sip", "transcript", "worker")
ROOT = Path(__file__).resolve().parent.parent  # where our top-level packages are installed


@dataclass(frozen=True, slots=True)
class Shadowed:
    name: str
    found: str  # the file (or directories) the import system resolves the name to
    ours: str


def _resolved(name: str) -> str | None:
    """Where `import name` would load from now, without importing it (None: not found)."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):  # a broken or spec-less module of that name
        return None
    if spec is None:
        return None
    if spec.origin not in (None, "namespace"):
        return str(spec.origin)
    return ", ".join(spec.submodule_search_locations or ())  # a namespace package's folders


def shadowed(root: Path = ROOT) -> list[Shadowed]:
    """Each of our names that resolves to something other than our installation in `root`."""
    found = []
    for name in NAMES:
        ours = root / name / "__init__.py"
        where = _resolved(name)
        if where is not None and Path(where).resolve() != ours.resolve():
            found.append(Shadowed(name, where, str(ours.parent)))
    return found


def warn_shadowed() -> None:
    """One warning line per shadowed name (no memory or caller data: only paths)."""
    for clash in shadowed():
        log.warning(
            "callmemory.shadowed_module", module=clash.name, found=clash.found, ours=clash.ours
        )


warn_shadowed()  # at import: `callmemory/__init__.py` imports this module before the others
