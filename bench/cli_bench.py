"""CLI benchmark: `caller-memory memory recall` with `make run`'s embedded server already up.

One embedded server is started on a fresh data directory (as `make run` would) and kept up.
Then, in interleaved rounds, each a fresh process:

- import: `python -c "import worker.cli"`, the floor every command pays;
- detect: the same import, then `infra.embedded.running_url` (how a command finds the
  running server now);
- attach: the same import, then `infra.embedded.start_embedded` (how every command found it
  before: importing the package and joining its list of processes);
- recall: the whole `caller-memory memory recall` of an unknown caller.

Median wall and CPU times (user + system: less sensitive to a busy machine) and their
ratios to import are printed in one run. The processes inherit the environment's bytecode
setting; `--bytecode-cache` gives them one of their own (in the run's directory, written by a
first run), as an installed package has: Python then no longer compiles our modules each time.
Usage: python -m bench.cli_bench [--rounds N] [--bytecode-cache]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
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


def _timed(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall time and CPU time (user + system) of one run of `argv` in a fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, env=env, check=True, capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--bytecode-cache", action="store_true")
    options = parser.parse_args()
    rounds = options.rounds
    with tempfile.TemporaryDirectory(prefix="cli-bench-") as tmp:
        data_dir = Path(tmp) / "pgdata"
        start_embedded(data_dir)  # `make run`'s server, up for the whole run
        env = {**os.environ, "MEMORY_PGDATA": str(data_dir)}
        env.pop("DATABASE_URL", None)
        if options.bytecode_cache:  # written by a first run of each command, read by the rounds
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
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
        runs: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
        for argv in commands.values() if options.bytecode_cache else ():
            _timed(argv, env)
        for _ in range(rounds):
            for name, argv in commands.items():
                runs[name].append(_timed(argv, env))
    print(json.dumps(_summary(runs), indent=2))


def _summary(runs: dict[str, list[tuple[float, float]]]) -> dict[str, dict[str, float]]:
    """Median wall and CPU seconds of each, and their ratios to the import's."""
    wall = {name: statistics.median(w for w, _ in times) for name, times in runs.items()}
    cpu = {name: statistics.median(c for _, c in times) for name, times in runs.items()}
    return {
        name: {
            "wall_s": round(wall[name], 3),
            "wall_vs_import": round(wall[name] / wall["import"], 2),
            "cpu_s": round(cpu[name], 3),
            "cpu_vs_import": round(cpu[name] / cpu["import"], 2),
        }
        for name in runs
    }


if __name__ == "__main__":
    main()
