"""The container and lock files checked statically (no Docker daemon runs here).

Every file the Dockerfile copies from the build context exists and is not excluded by
`.dockerignore`; every command the image and the compose file run is one the deployment page
(`docs/deployment.md`) documents;
the lock files pin every declared dependency at a version its range admits.
"""

from __future__ import annotations

import fnmatch
import json
import re
import shlex
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = (ROOT / "Dockerfile").read_text("utf-8")
DEPLOYMENT = (ROOT / "docs" / "deployment.md").read_text("utf-8")
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))


def instructions(keyword: str) -> list[str]:
    """Arguments of every instruction of this kind, continuation lines joined."""
    text = DOCKERFILE.replace("\\\n", " ")
    return [m.group(1).strip() for m in re.finditer(rf"^{keyword}\s+(.+)$", text, re.MULTILINE)]


def context_sources() -> list[str]:
    """Sources of COPY instructions that read the build context (not another stage)."""
    sources: list[str] = []
    for args in instructions("COPY"):
        if args.startswith("--from"):
            continue
        sources.extend(shlex.split(args)[:-1])
    return sources


def ignored(path: str) -> bool:
    patterns = [
        line.strip()
        for line in (ROOT / ".dockerignore").read_text("utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]
    verdict = False
    for pattern in patterns:
        negated = pattern.startswith("!")
        if fnmatch.fnmatch(path, pattern.removeprefix("!")):
            verdict = not negated
    return verdict


def exec_form(args: str) -> str:
    return " ".join(json.loads(args)) if args.startswith("[") else args


def test_every_copied_file_exists_and_reaches_the_build() -> None:
    sources = context_sources()
    assert "requirements.lock" in sources and "memory" in sources
    for source in sources:
        assert (ROOT / source).exists(), source
        assert not ignored(source), source


def test_the_image_runs_as_a_user_and_never_as_root() -> None:
    users = instructions("USER")
    assert users and users[-1] not in {"root", "0"}


def test_dependencies_come_from_the_lock_with_hashes() -> None:
    assert any("--require-hashes -r requirements.lock" in run for run in instructions("RUN"))


@pytest.mark.parametrize(
    "command",
    [
        *[exec_form(a) for a in instructions("CMD")],
        *[r for r in instructions("RUN") if r.startswith(("python -m worker", "python -m memory"))],
        *[
            " ".join(m)
            for m in (
                json.loads(c)
                for c in re.findall(
                    r"command: (\[.+\])", (ROOT / "compose.yaml").read_text("utf-8")
                )
            )
        ],
    ],
)
def test_commands_the_image_runs_are_documented(command: str) -> None:
    assert command in DEPLOYMENT, f"docs/deployment.md does not document `{command}`"


def _pins(lock: str) -> dict[str, str]:
    text = (ROOT / lock).read_text("utf-8")
    return {
        canonicalize_name(m.group(1)): m.group(2)
        for m in re.finditer(r"^([A-Za-z0-9_.\-]+)==([^\s\\;]+)", text, re.MULTILINE)
    }


@pytest.mark.parametrize(
    ("lock", "declared"),
    [
        ("requirements.lock", PYPROJECT["project"]["dependencies"]),
        (
            "requirements-dev.lock",
            PYPROJECT["project"]["dependencies"]
            + PYPROJECT["project"]["optional-dependencies"]["dev"],
        ),
    ],
)
def test_lock_pins_every_declared_dependency_inside_its_range(
    lock: str, declared: list[str]
) -> None:
    pins = _pins(lock)
    for line in declared:
        requirement = Requirement(line)
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{lock} lacks {name}: run `make lock`"
        assert requirement.specifier.contains(pins[name], prereleases=True), (
            f"{lock} pins {name}=={pins[name]} outside {requirement.specifier}: run `make lock`"
        )


def test_pinned_lock_has_a_hash_for_every_package() -> None:
    text = (ROOT / "requirements.lock").read_text("utf-8")
    blocks = re.split(r"\n(?=[A-Za-z0-9_.\-]+==)", text)
    packages = [b for b in blocks if re.match(r"[A-Za-z0-9_.\-]+==", b)]
    assert packages and all("--hash=sha256:" in b for b in packages)
