"""axe-core (from npm, `package.json`) run inside the page: the serious and critical violations.

The library is read from `node_modules` and evaluated over DevTools (not served by the app), so
the screen's policy stays as strict as it is. Without it the check skips, or fails under
REQUIRE_BROWSER=1 like a missing browser.
"""

from __future__ import annotations

from pathlib import Path

from tests.rooms.browser import Page, browser_missing

AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"
BLOCKING = ("serious", "critical")


def axe_source() -> str:
    if not AXE.exists():
        browser_missing("axe-core is not installed: run `npm ci` (or `make setup`)")
    return AXE.read_text("utf-8")


async def violations(page: Page, source: str) -> list[str]:
    """Each serious or critical violation on the page as shown now, with the nodes it names."""
    if not await page.evaluate("typeof window.axe === 'object'"):
        await page.evaluate(source)
    found: list[str] = await page.evaluate(
        "axe.run(document, {resultTypes: ['violations']}).then(r => r.violations"
        f".filter(v => {list(BLOCKING)!r}.includes(v.impact))"
        ".map(v => `${v.impact} ${v.id}: ${v.nodes.map(n => n.target.join(' ')).join(', ')}`))"
    )
    return found
