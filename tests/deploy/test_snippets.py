"""The attach snippets survive a newcomer's formatter: `ruff format` at its default line length
(88, LiveKit's starter's) leaves the README's snippet and the example `docs/attach.md` shows
unchanged, and each example still attaches memory in the same four changed lines once
formatted. The example shown is the file the job-runner tests run."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.deploy.test_examples import EXAMPLES, MOST, changed_lines, code_lines

ROOT = Path(__file__).resolve().parents[2]
RUFF = Path(sys.executable).with_name("ruff")
BLOCK = re.compile(r"```python\n(.*?)```", re.DOTALL)


def formatted(source: str) -> str:
    """`source` as `ruff format` with its defaults (no project settings) leaves it."""
    done = subprocess.run(
        [str(RUFF), "format", "--isolated", "--stdin-filename", "agent.py", "-"],
        input=source,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def attach_snippets(page: Path) -> list[str]:
    return [b for b in BLOCK.findall(page.read_text()) if "memory.start(" in b]


@pytest.mark.parametrize("page", ["README.md", "docs/attach.md"])
def test_the_documented_snippet_is_already_formatted(page: str) -> None:
    snippets = attach_snippets(ROOT / page)
    assert snippets
    for snippet in snippets:
        assert formatted(snippet) == snippet


def test_the_example_shown_is_the_file_the_tests_run() -> None:
    assert (
        attach_snippets(ROOT / "docs" / "attach.md")[0] == (EXAMPLES / "front_desk.py").read_text()
    )


def code_lines_of(source: str, tmp_path: Path, name: str) -> list[str]:
    """`code_lines` of `source`: after the docstring, a `define_agent` statement left out."""
    path = tmp_path / name
    path.write_text(source)
    return code_lines(path)


@pytest.mark.parametrize("agent", ["front_desk", "assistant"])
def test_formatting_keeps_the_four_changed_lines(agent: str, tmp_path: Path) -> None:
    twin = (EXAMPLES / f"{agent}_without_memory.py").read_text()
    attached = (EXAMPLES / f"{agent}.py").read_text()
    changes = changed_lines(
        code_lines_of(formatted(twin), tmp_path, "twin.py"),
        code_lines_of(formatted(attached), tmp_path, "attached.py"),
    )
    assert 0 < len(changes) <= MOST, "\n".join(changes)
    assert changes == changed_lines(
        code_lines(EXAMPLES / f"{agent}_without_memory.py"), code_lines(EXAMPLES / f"{agent}.py")
    )
