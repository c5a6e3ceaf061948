"""CLI benchmark: `caller-memory memory recall` with `make run`'s embedded server already up.

One embedded server is started on a fresh data directory (as `make run` would) and kept up.
Then, in interleaved rounds, each a fresh process:

- import: `python -c "import worker.cli"`, the floor every command pays;
- detect: the same import, then `infra.embedded.running_url` (how a command finds the
  running server now);
- attach: the same import, then `infra.embedded.start_embedded` (how every command found it
  before: importing the package and joining its list of processes);
- recall: the whole `caller-memory memory recall` of an unknown caller.

Medians and their ratios to import are printed in one run.
Usage: python -m bench.cli_bench [--rounds N]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from infra.embedded import start_embedded

FIND = (
    "import sys, worker.cli, infra.embedded as e; from pathlib import Path; e.{}(Path(sys.argv[1]))"
)
RECALL = ["memory", "recall", "support", "+15550100"]


def _timed(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, env=env, check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    rounds = parser.parse_args().rounds
    with tempfile.TemporaryDirectory(prefix="cli-bench-") as tmp:
        data_dir = Path(tmp) / "pgdata"
        start_embedded(data_dir)  # `make run`'s server, up for the whole run
        env = {**os.environ, "MEMORY_PGDATA": str(data_dir)}
        env.pop("DATABASE_URL", None)
        py = sys.executable
        subprocess.run(
            [str(Path(py).parent / "caller-memory"), "memory", "migrate"],
            env=env,
            check=True,
            capture_output=True,
        )
        commands = {
            "import": [py, "-c", "import worker.cli"],
            "detect": [py, "-c", FIND.format("running_url"), str(data_dir)],
            "attach": [py, "-c", FIND.format("start_embedded"), str(data_dir)],
            "recall": [str(Path(py).parent / "caller-memory"), *RECALL],
        }
        runs: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(rounds):
            for name, argv in commands.items():
                runs[name].append(_timed(argv, env))
    floor = statistics.median(runs["import"])
    print(
        json.dumps(
            {
                name: {
                    "median_s": round(statistics.median(times), 3),
                    "ratio_to_import": round(statistics.median(times) / floor, 2),
                }
                for name, times in runs.items()
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
