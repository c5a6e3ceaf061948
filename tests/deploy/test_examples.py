"""Each example agent attaches memory in at most four changed lines: it is diffed against its
memory-less twin in `examples/`.

A changed line is a line of code after the module docstring that the twin does not have or has
differently (a replaced line counts once, blank lines not at all). The `define_agent(...)`
statement that declares an agent for its text channel too is not part of attaching memory, so
its lines are not counted (it is the only other change allowed)."""

from __future__ import annotations

import ast
import difflib
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
MOST = 4


def _definition_lines(body: list[ast.stmt]) -> set[int]:
    """The line numbers (from 1) of module-level statements that call `define_agent`."""
    lines: set[int] = set()
    for statement in body:
        calls = [n for n in ast.walk(statement) if isinstance(n, ast.Call)]
        if any(isinstance(c.func, ast.Name) and c.func.id == "define_agent" for c in calls):
            lines.update(range(statement.lineno, (statement.end_lineno or statement.lineno) + 1))
    return lines


def code_lines(path: Path) -> list[str]:
    """The file's non-blank lines after its module docstring, but a `define_agent` statement."""
    source = path.read_text()
    body = ast.parse(source).body
    first = body[0]
    is_doc = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
    start = first.end_lineno if is_doc and first.end_lineno is not None else 0
    skipped = _definition_lines(body)
    return [
        line
        for number, line in enumerate(source.splitlines(), start=1)
        if number > start and number not in skipped and line.strip()
    ]


def changed_lines(before: list[str], after: list[str]) -> list[str]:
    """What `after` changes of `before`: each replaced, added or removed line once."""
    changes: list[str] = []
    matcher = difflib.SequenceMatcher(a=before, b=after, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        removed, added = before[i1:i2], after[j1:j2]
        changes.extend(added + removed[len(added) :])
    return changes


@pytest.mark.parametrize("agent", ["front_desk", "assistant"])
def test_memory_is_attached_in_at_most_four_changed_lines(agent: str) -> None:
    twin = code_lines(EXAMPLES / f"{agent}_without_memory.py")
    attached = code_lines(EXAMPLES / f"{agent}.py")
    changes = changed_lines(twin, attached)
    assert 0 < len(changes) <= MOST, "\n".join(changes)
    assert any("memory.start(" in line for line in changes)  # the twin itself has no memory
    assert not any("memory" in line.lower() for line in twin)


def test_the_count_counts_a_replaced_line_once_and_an_added_or_removed_one_each() -> None:
    before = ["a", "b", "c", "d"]
    assert changed_lines(before, before) == []
    assert changed_lines(before, ["a", "B", "c", "d"]) == ["B"]
    assert changed_lines(before, ["a", "b", "x", "y", "c", "d"]) == ["x", "y"]
    assert changed_lines(before, ["a", "d"]) == ["b", "c"]
    assert changed_lines(before, ["a", "B", "B2", "d"]) == ["B", "B2"]
