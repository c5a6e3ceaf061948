"""Reading the README and the pages under `docs/`: their links, heading anchors and the
configuration table. Shared by the docs check and the settings-model agreement test."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
CONFIGURATION = DOCS / "configuration.md"

_FENCE = re.compile(r"^(```|~~~).*?^\1\s*$", re.MULTILINE | re.DOTALL)
_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)


def pages() -> list[Path]:
    """The README and every page under `docs/`."""
    return [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]


def prose(text: str) -> str:
    """The text without fenced code blocks (their brackets are code, not links)."""
    return _FENCE.sub("", text)


def links(text: str) -> list[str]:
    """Targets of every inline link and image outside code blocks."""
    return _LINK.findall(prose(text))


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: markup dropped, lower case, punctuation removed, spaces
    to hyphens (letters, digits, `_` and `-` stay)."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its text
    text = text.replace("`", "").replace("*", "").lower()
    kept = "".join(c for c in text if c in " -_" or unicodedata.category(c)[0] in {"L", "N", "M"})
    return kept.replace(" ", "-")


def anchors(text: str) -> set[str]:
    """Every heading anchor of a page; a repeated heading gets `-1`, `-2`, ... as on GitHub."""
    seen: dict[str, int] = {}
    found: set[str] = set()
    for heading in _HEADING.findall(prose(text)):
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def documented_variables() -> set[str]:
    """Variables named in the first cell of the configuration table's rows."""
    rows = [
        line for line in CONFIGURATION.read_text("utf-8").splitlines() if line.startswith("| `")
    ]
    first_cells = [row.split("|")[1] for row in rows]
    return {name for cell in first_cells for name in re.findall(r"`([A-Z0-9_]+)`", cell)}
