"""`PROMETHEUS_MULTIPROC_DIR` naming a directory that does not exist yet: importing the product
creates it instead of failing inside prometheus_client (which opens its files there when the
metric modules are imported)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.processes  # starts processes: not in `make check`

IMPORT_ALL = "import callmemory, worker.agent, worker.http.web; print('imported')"


def _import_with(directory: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(directory)}
    return subprocess.run(
        [sys.executable, "-c", IMPORT_ALL],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_a_missing_directory_is_created_at_import(tmp_path: Path) -> None:
    directory = tmp_path / "not" / "yet"
    done = _import_with(directory)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "imported"
    assert directory.is_dir()
    assert any(directory.iterdir()), "prometheus_client writes its value files there"


def test_a_file_in_its_place_is_refused_naming_the_variable(tmp_path: Path) -> None:
    in_the_way = tmp_path / "metrics"
    in_the_way.write_text("")
    done = _import_with(in_the_way)
    assert done.returncode != 0
    assert "PROMETHEUS_MULTIPROC_DIR" in done.stderr
    assert "is not a directory" in done.stderr
