"""No route module writes an error answer: each raises a typed failure, and the one error
middleware (`worker.http.server.errors`) translates it. Read from the modules' syntax: an import
of the error answer, a dict with an `error` key, an answer writer called, a status of 400 or
more given, or an aiohttp error raised, each is named with its line.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest
from aiohttp import web

from worker.http.server import errors

HTTP = Path(errors.__file__).parents[1]
# every module that answers a request: the routes, the pages, the wires' routes, the route table
ROUTE_MODULES = sorted(
    [
        *HTTP.glob("routes/*.py"),
        *HTTP.glob("console/*.py"),
        HTTP / "wires" / "openai.py",
        HTTP / "wires" / "anthropic.py",
        HTTP / "server" / "context.py",
    ]
)
ANSWER_WRITERS = frozenset(
    {"json_response", "set_status", "problem", "answer", "Problem", "translate"}
)
HEALTH_ANSWER = ("routes/health.py", 503)  # the health report's degraded state, not an error


def violations(source: str, module: str = "routes/x.py") -> Iterator[str]:
    """Where a module builds an error answer instead of raising a failure."""
    for node in ast.walk(ast.parse(source)):
        yield from _violation(node, module)


def _violation(node: ast.AST, module: str) -> Iterator[str]:
    if isinstance(node, ast.ImportFrom) and node.module == "worker.http.server.errors":
        yield f"{module}:{node.lineno} imports the error answer"
    if isinstance(node, ast.Dict) and any(
        isinstance(k, ast.Constant) and k.value == "error" for k in node.keys
    ):
        yield f"{module}:{node.lineno} builds an error body"
    if isinstance(node, ast.Attribute | ast.Name):
        yield from _aiohttp_error(_name(node), module)
    if isinstance(node, ast.Call):
        called = _name(node.func)
        if called in ANSWER_WRITERS and (module, called) != ("server/context.py", "json_response"):
            yield f"{module}:{node.lineno} calls {called}"
        for status in _statuses(node):
            if status >= 400 and (module, status) != HEALTH_ANSWER:
                yield f"{module}:{node.lineno} answers status {status}"


def _name(node: ast.AST) -> str:
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def _aiohttp_error(name: str, module: str) -> Iterator[str]:
    """An aiohttp error answer raised instead of a typed failure (redirects are fine)."""
    error_class: object = getattr(web, name, None)
    status = getattr(error_class, "status_code", 0)
    if (
        isinstance(error_class, type)
        and issubclass(error_class, web.HTTPException)
        and status >= 400
    ):
        yield f"{module} raises {name}"


def _statuses(call: ast.Call) -> Iterator[int]:
    """Integer statuses given to a call, by keyword or as the second argument."""
    given = [k.value for k in call.keywords if k.arg == "status"] + call.args[1:2]
    for value in given:
        if isinstance(value, ast.Constant) and isinstance(value.value, int):
            yield value.value


def test_there_are_route_modules_to_check() -> None:
    assert len(ROUTE_MODULES) >= 10
    assert HTTP / "routes" / "customers.py" in ROUTE_MODULES


@pytest.mark.parametrize("path", ROUTE_MODULES, ids=lambda p: p.relative_to(HTTP).as_posix())
def test_route_modules_never_write_error_answers(path: Path) -> None:
    module = path.relative_to(HTTP).as_posix()
    assert list(violations(path.read_text("utf-8"), module)) == []


@pytest.mark.parametrize(
    "source",
    [
        "from worker.http.server.errors import answer",
        "x = {'error': {'code': 'bad_request'}}",
        "web.json_response({}, status=200)",
        "response.set_status(404)",
        "return answer(translate(failure))",
        "raise web.HTTPBadRequest()",
        "return respond(body, status=409)",
        "return respond(body, 503)",
    ],
)
def test_the_check_sees_an_error_answer(source: str) -> None:
    assert list(violations(source)) != []


def test_the_check_lets_success_answers_and_redirects_through() -> None:
    source = "respond(body, status=201)\nraise web.HTTPFound('/memory/')\n"
    assert list(violations(source)) == []
