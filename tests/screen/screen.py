"""Operator actions on the Memory screen, as DOM events in the browser (no test hooks)."""

from __future__ import annotations

import json
from typing import Any

from tests.rooms.browser import Page
from tests.screen.conftest import KEYS, Client


async def fill(page: Page, element_id: str, value: str) -> None:
    """Type `value` into a field: its value set, then the events a keyboard would fire."""
    await page.evaluate(
        f"(() => {{ const e = document.getElementById({json.dumps(element_id)});"
        f" e.value = {json.dumps(value)};"
        " e.dispatchEvent(new Event('input')); e.dispatchEvent(new Event('change')); })()"
    )


async def click(page: Page, element_id: str) -> None:
    await page.evaluate(f"document.getElementById({json.dumps(element_id)}).click()")


async def text(page: Page, element_id: str) -> str:
    value: str = await page.evaluate(
        f"document.getElementById({json.dumps(element_id)}).textContent"
    )
    return value


async def prop(page: Page, element_id: str, name: str) -> Any:
    return await page.evaluate(
        f"document.getElementById({json.dumps(element_id)})[{json.dumps(name)}]"
    )


async def texts(page: Page, selector: str) -> list[str]:
    value: list[str] = await page.evaluate(
        f"[...document.querySelectorAll({json.dumps(selector)})].map(e => e.textContent)"
    )
    return value


async def wait_text(page: Page, element_id: str, part: str) -> str:
    """Wait until the element's text contains `part`; its whole text is returned."""
    found: str = await page.wait_for(
        f"(() => {{ const t = document.getElementById({json.dumps(element_id)}).textContent;"
        f" return t.includes({json.dumps(part)}) ? t : ''; }})()"
    )
    return found


async def sign_in(
    page: Page, client: Client, agent: str, key: str = "operator", url: str | None = None
) -> None:
    """Open the screen (at `url`, else the client's), type the key, load the agents and choose
    `agent`."""
    await page.goto(url or str(client.make_url("/memory/")), ready="window.memoryScreen")
    await fill(page, "api-key", KEYS[key][0])
    await click(page, "connect")
    await wait_text(page, "status", "agent(s)")
    await choose_agent(page, agent)


async def choose_agent(page: Page, agent: str) -> None:
    """Choose `agent` unless it is chosen already (choosing again reloads the Memory tab)."""
    if await prop(page, "agent", "value") == agent:
        return
    await fill(page, "agent", agent)
    await wait_text(page, "settings-agent", agent)
    await page.wait_for("document.getElementById('origin-read').textContent !== ''")


async def requested_urls(page: Page) -> list[str]:
    """Every URL the page fetched, from the browser's own resource timing."""
    urls: list[str] = await page.evaluate(
        "performance.getEntriesByType('resource').map(e => e.name)"
    )
    return urls


KEYS_CODES = {"Tab": 9, "Enter": 13, "Escape": 27, " ": 32}


async def press(page: Page, key: str, shift: bool = False) -> None:
    """One key pressed and released, as the keyboard sends it (trusted input events)."""
    event: dict[str, Any] = {
        "key": key,
        "code": "Space" if key == " " else key,
        "windowsVirtualKeyCode": KEYS_CODES[key],
        "modifiers": 8 if shift else 0,
    }
    text = {"Enter": "\r", " ": " "}.get(key)
    await page.send(
        "Input.dispatchKeyEvent", type="keyDown", **event, **({"text": text} if text else {})
    )
    await page.send("Input.dispatchKeyEvent", type="keyUp", **event)


async def type_text(page: Page, value: str) -> None:
    await page.send("Input.insertText", text=value)


async def focused(page: Page) -> str:
    """The id of the focused element ('' when it has none)."""
    value: str = await page.evaluate("document.activeElement ? document.activeElement.id : ''")
    return value


async def tab_to(page: Page, element_id: str, limit: int = 60) -> None:
    """Press Tab until `element_id` has the focus (at most `limit` presses)."""
    for _ in range(limit):
        await press(page, "Tab")
        if await focused(page) == element_id:
            return
    raise AssertionError(f"Tab never reached #{element_id}")
