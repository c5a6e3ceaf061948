"""Prompt texts shipped with the package, loaded from files rather than string literals."""

from functools import cache
from importlib import resources


@cache
def prompt(name: str) -> str:
    """The text of `memory/prompts/<name>.md`."""
    return resources.files("memory").joinpath("prompts", f"{name}.md").read_text("utf-8").strip()
