"""`worker.http.server.answers` imports a family's module with the first of its names used
(a CLI command loads its one answer; tests/cli/test_imports.py): every public name still
resolves to what its family defines, and a name the package lacks is still refused."""

from __future__ import annotations

import importlib

import pytest

from worker.http.server import answers

PACKAGE = "worker.http.server.answers"


def test_every_public_name_is_the_one_its_family_defines() -> None:
    assert sorted(answers._HOMES) == sorted(answers.__all__)
    for name, family in answers._HOMES.items():
        module = importlib.import_module(f"{PACKAGE}.{family}")
        assert getattr(answers, name) is getattr(module, name), name


def test_a_name_it_does_not_have_is_refused() -> None:
    with pytest.raises(AttributeError, match="NoSuchAnswer"):
        answers.NoSuchAnswer  # noqa: B018
    with pytest.raises(ImportError, match="NoSuchAnswer"):
        exec(f"from {PACKAGE} import NoSuchAnswer", {})
