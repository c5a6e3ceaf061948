"""`python -m memory ...` is `caller-memory memory ...` (kept for scripts that use it)."""

from __future__ import annotations

import sys

from worker.cli import main

if __name__ == "__main__":
    sys.exit(main(["memory", *sys.argv[1:]]))
