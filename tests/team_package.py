"""A team's own package, written outside this repository by a test, importable for the test's
length only: on `sys.path` while it runs, then removed with every module imported from it (the
agents, held-tools and AG-UI suites each write their own package with `write_package`)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def importable(root: Path, package: str) -> Iterator[Path]:
    """`root` on `sys.path` until the block ends; `package`'s modules forgotten after it."""
    sys.path.insert(0, str(root))
    try:
        yield root
    finally:
        sys.path.remove(str(root))
        for name in [m for m in sys.modules if m == package or m.startswith(f"{package}.")]:
            del sys.modules[name]
