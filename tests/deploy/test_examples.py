"""The examples the docs show are the ones that run.

The sample transcript the CLI documentation points at is valid input for `memory add`; the
example agent is shown whole in `docs/attach.md`, and the README's short excerpt of it is made of
the example's own lines.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from memory.contract import _requests as requests

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "front_desk.py"


def test_sample_transcript_is_accepted_as_add_content() -> None:
    path = ROOT / "examples" / "transcript.json"
    assert f'memory add support "+34111111111" {path.relative_to(ROOT)}' in (
        ROOT / "docs" / "operations.md"
    ).read_text("utf-8")
    messages = json.loads(path.read_text("utf-8"))
    assert requests.transcript(messages)


def test_the_example_agent_is_short_and_the_attach_page_shows_it_whole() -> None:
    source = EXAMPLE.read_text("utf-8")
    assert len(source.splitlines()) <= 40
    assert f"```python\n{source}```" in (ROOT / "docs" / "attach.md").read_text("utf-8")


def test_the_readme_excerpt_is_the_example_s_own_code() -> None:
    """Every line of the README's Python block is a line of the example, except the
    entrypoint's signature and the session, which the excerpt shortens (they say `...`)."""
    readme = (ROOT / "README.md").read_text("utf-8")
    blocks = re.findall(r"```python\n(.*?)```", readme, re.DOTALL)
    assert len(blocks) == 1
    example = {line.strip() for line in EXAMPLE.read_text("utf-8").splitlines()}
    shown = [line.strip() for line in blocks[0].splitlines() if line.strip()]
    assert "if await memory.attach(ctx, session, agent):" in " ".join(shown)
    shortened = [line for line in shown if "..." in line or line.startswith("async def ")]
    assert len(shortened) == 2, shortened
    assert [line for line in shown if line not in shortened and line not in example] == []
