"""The README and `docs/` hold together: every relative link reaches a file (and a heading, for
`#anchor` links), every page is reachable from the README and leads back to it, and the
configuration page documents exactly the variables of the settings model. No network."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from callmemory.environment import variables
from tests.docs_pages import (
    CONFIGURATION,
    DOCS,
    ROOT,
    anchors,
    documented_variables,
    links,
    pages,
    slug,
)

NOT_PROCESS_VARIABLES = {"TEST_DATABASE_URL", "BENCH_DATABASE_URL"}  # tests and benchmarks


def relative(target: str) -> bool:
    return not urlsplit(target).scheme and not target.startswith("//")


@pytest.mark.parametrize("page", pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page: Path) -> None:
    broken: list[str] = []
    for target in filter(relative, links(page.read_text("utf-8"))):
        path, _, fragment = target.partition("#")
        file = (page.parent / unquote(path)).resolve() if path else page
        if not file.exists():
            broken.append(f"{target}: no file {file.relative_to(ROOT)}")
        elif fragment and file.suffix == ".md":
            if unquote(fragment) not in anchors(file.read_text("utf-8")):
                broken.append(f"{target}: no heading #{fragment} in {file.relative_to(ROOT)}")
        elif fragment:
            broken.append(f"{target}: an anchor into a file that is not a page")
    assert not broken, "\n".join(broken)


def test_links_stay_inside_the_repository() -> None:
    for page in pages():
        for target in filter(relative, links(page.read_text("utf-8"))):
            path = target.partition("#")[0]
            if path:
                assert (page.parent / path).resolve().is_relative_to(ROOT), (page.name, target)


def test_every_page_is_linked_from_the_readme_and_links_back() -> None:
    readme = {
        (ROOT / t.partition("#")[0]).resolve()
        for t in links((ROOT / "README.md").read_text("utf-8"))
        if relative(t) and t.partition("#")[0]
    }
    for page in sorted(DOCS.glob("*.md")):
        assert page.resolve() in readme, f"README does not link to {page.name}"
        back = [t for t in links(page.read_text("utf-8")) if t.partition("#")[0] == "../README.md"]
        assert back, f"{page.name} does not link back to the README"


def test_the_console_pictures_are_linked() -> None:
    """Every view at both widths is in docs/screens and linked from the console's docs; the
    README links some of them."""
    shots = {f"screens/{p.name}" for p in (DOCS / "screens").glob("*.png")}
    assert {f"screens/customers-{w}.png" for w in ("desktop", "phone")} <= shots
    assert shots <= set(links((DOCS / "operations.md").read_text("utf-8")))
    readme = {t for t in links((ROOT / "README.md").read_text("utf-8")) if t.endswith(".png")}
    assert readme and {t.removeprefix("docs/") for t in readme} <= shots


def test_every_documented_variable_is_a_setting_and_every_setting_is_documented() -> None:
    documented = documented_variables() - NOT_PROCESS_VARIABLES
    model = set(variables())
    assert documented, f"no variables found in {CONFIGURATION.relative_to(ROOT)}"
    assert not documented - model, f"documented but not settings: {sorted(documented - model)}"
    assert not model - documented, f"settings not documented: {sorted(model - documented)}"


@pytest.mark.parametrize(
    ("heading", "anchor"),
    [
        ("Live memory: turn passes and `memory.ops`", "live-memory-turn-passes-and-memoryops"),
        ("Remember / forget briefs", "remember--forget-briefs"),
        ("Reverse proxy (production)", "reverse-proxy-production"),
        ("Growth: recall over a million call records", "growth-recall-over-a-million-call-records"),
        ("Inside `memory/`", "inside-memory"),
        ("snake_case and Ünïcode", "snake_case-and-ünïcode"),
    ],
)
def test_anchors_are_github_slugs(heading: str, anchor: str) -> None:
    assert slug(heading) == anchor


def test_a_repeated_heading_gets_a_numbered_anchor() -> None:
    assert anchors("# A\n## Notes\n```\n# not a heading\n```\n## Notes\n") == {
        "a",
        "notes",
        "notes-1",
    }
