"""The sample transcript the README points at is valid input for `memory add`."""

from __future__ import annotations

import json
from pathlib import Path

from memory.contract import _requests as requests

ROOT = Path(__file__).resolve().parents[2]


def test_sample_transcript_is_accepted_as_add_content() -> None:
    path = ROOT / "examples" / "transcript.json"
    assert f'memory add support "+34111111111" {path.relative_to(ROOT)}' in (
        ROOT / "README.md"
    ).read_text("utf-8")
    messages = json.loads(path.read_text("utf-8"))
    assert requests.transcript(messages)


def test_the_example_agent_is_short_and_the_readme_shows_it_whole() -> None:
    source = (ROOT / "examples" / "front_desk.py").read_text("utf-8")
    assert len(source.splitlines()) <= 40
    assert f"```python\n{source}```" in (ROOT / "README.md").read_text("utf-8")
