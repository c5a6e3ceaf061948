"""`python -m memory ...` is `caller-memory memory ...` (deprecated: use `caller-memory memory`).

Kept for scripts written against it. The command is found through the installed `caller-memory`
console script, so this package imports nothing above it.
"""

from __future__ import annotations

import sys
from importlib.metadata import entry_points


def main() -> int:
    (command,) = entry_points(group="console_scripts", name="caller-memory")
    return int(command.load()(["memory", *sys.argv[1:]]) or 0)


if __name__ == "__main__":
    sys.exit(main())
