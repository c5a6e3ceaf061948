"""Prompt texts shipped with the package, loaded from files rather than string literals."""

import json
from functools import cache
from importlib import resources
from typing import Any

_ESCAPES = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"})


@cache
def prompt(name: str) -> str:
    """The text of `memory/extraction/prompts/<name>.md`."""
    return (
        resources.files("memory.extraction")
        .joinpath("prompts", f"{name}.md")
        .read_text("utf-8")
        .strip()
    )


def inert_json(value: Any) -> str:
    """JSON whose `<`, `>` and `&` are escaped: it can neither close a frame nor open markup."""
    return json.dumps(value, ensure_ascii=False).translate(_ESCAPES)
