"""The rule of docs/architecture.md, checked on the real import graph.

Imports point inwards: the contracts in pyproject.toml (`[tool.importlinter]`) name the rooms
from the top down, and import-linter checks every import of the code, including imports inside
functions and under `TYPE_CHECKING`. No module of the product takes part in an import cycle.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import grimp
import importlinter.cli  # noqa: F401  (sets up import-linter's adapters, as its command does)
from importlinter.application import use_cases

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = ("worker", "callmemory", "chat", "lifecycle", "sip", "transcript", "memory", "infra")


def test_imports_point_inwards() -> None:
    report = io.StringIO()
    # the use case, not the command: the command reconfigures logging for the whole process
    with contextlib.redirect_stdout(report):
        passed = use_cases.lint_imports(
            config_filename=str(ROOT / "pyproject.toml"), cache_dir=None
        )
    assert passed, report.getvalue()
    assert "0 broken" in report.getvalue()


def cycles(imports: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for target in imports.get(module, ()):
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            group = []
            while (member := stack.pop()) != module:
                group.append(member)
            if group:
                found.append(sorted([module, *group]))

    for module in sorted(imports):
        if module not in index:
            visit(module)
    return found


def test_cycle_finder_sees_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_module_of_the_product_is_in_an_import_cycle() -> None:
    graph = grimp.build_graph(*PRODUCT)
    imports = {m: graph.find_modules_directly_imported_by(m) for m in graph.modules}
    # a package's face importing its own modules is how a face works, not a cycle of rooms
    edges = {
        m: {t for t in targets if not m.startswith(f"{t}.") and not t.startswith(f"{m}.")}
        for m, targets in imports.items()
    }
    assert cycles(edges) == []
