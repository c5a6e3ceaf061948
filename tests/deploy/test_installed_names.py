"""The top-level names the package installs, and the one line that says when an application's
own module shadows one of them (checked in a real interpreter started beside that module)."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from callmemory.installed_names import NAMES

ROOT = Path(__file__).resolve().parents[2]
EVENT = "callmemory.shadowed_module"


def import_callmemory(cwd: Path) -> subprocess.CompletedProcess[str]:
    """`python -c "import callmemory"` run from `cwd` (first on its `sys.path`)."""
    return subprocess.run(
        [sys.executable, "-c", "import callmemory"],
        cwd=cwd,
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )


def warnings_in(done: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in (done.stdout + done.stderr).splitlines() if EVENT in line]


def test_the_names_are_the_ones_the_wheel_installs() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    include = config["tool"]["setuptools"]["packages"]["find"]["include"]
    assert sorted(NAMES) == sorted(name.rstrip("*") for name in include)


def test_a_module_beside_the_agent_that_shadows_ours_is_named_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "memory.py").write_text("NOTES = []\n")
    done = import_callmemory(tmp_path)
    (line,) = warnings_in(done)
    assert "module=memory" in line
    assert f"found={tmp_path / 'memory.py'}" in line
    assert f"ours={ROOT / 'memory'}" in line
    assert (done.stdout + done.stderr).index(EVENT) < (done.stdout + done.stderr).find("Traceback")


@pytest.mark.parametrize("name", ["chat", "worker"])
def test_a_package_of_the_same_name_is_named_too(tmp_path: Path, name: str) -> None:
    (tmp_path / name).mkdir()
    (tmp_path / name / "__init__.py").write_text("")
    (line,) = warnings_in(import_callmemory(tmp_path))
    assert f"module={name}" in line and f"found={tmp_path / name / '__init__.py'}" in line


def test_nothing_is_said_when_every_name_is_ours(tmp_path: Path) -> None:
    (tmp_path / "agent.py").write_text("")  # an application's own, differently named module
    done = import_callmemory(tmp_path)
    assert done.returncode == 0, done.stderr
    assert warnings_in(done) == []
