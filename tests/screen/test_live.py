"""The live feed's event-stream reading: the parser the page runs (its own module, imported in
the browser) over chunks cut anywhere, CRLF lines, comments and multi-line data."""

from __future__ import annotations

import json

from memory.contract import CursorExpired
from tests.rooms.browser import Page
from tests.screen.conftest import Client

CHUNKS = [
    ": keep-alive\n\n",
    'id: 7\nevent: op\ndata: {"id": 7,',  # an event cut in the middle of its data line
    ' "contact": "+34 611"}\n\nid: 8\r\nevent: op\r\n',
    "data: first line\r\ndata: second line\r\n\r\n",
    ": keep-alive\n\nid: 9\nevent: op\n",  # the last event not finished yet
]


async def parsed(page: Page, chunks: list[str]) -> list[list[dict[str, str]]]:
    """What the parser gives after each chunk."""
    found: list[list[dict[str, str]]] = await page.evaluate(
        "import('/memory/sse.js').then(({EventParser}) => { const p = new EventParser();"
        f" return {json.dumps(chunks)}.map(c => p.push(c)); }})"
    )
    return found


async def test_the_parser_joins_chunks_and_skips_comments(page: Page, client: Client) -> None:
    await page.goto(str(client.make_url("/memory/")), ready="window.memoryScreen")
    steps = await parsed(page, CHUNKS)
    assert steps[0] == [] and steps[1] == []  # a comment; half an event
    assert steps[2] == [{"id": "7", "event": "op", "data": '{"id": 7, "contact": "+34 611"}'}]
    assert steps[3] == [{"id": "8", "event": "op", "data": "first line\nsecond line"}]
    assert steps[4] == []  # event 9 waits for its blank line


async def test_an_expired_cursor_resumes_where_the_answer_says(page: Page, client: Client) -> None:
    """The 410's own message (retention deleted events up to 42) gives the cursor to go on."""
    expired = CursorExpired(5, 42)
    await page.goto(str(client.make_url("/memory/")), ready="window.memoryScreen")
    error = json.dumps({"code": expired.code, "message": expired.message})
    other = json.dumps({"code": "invalid_request", "message": "after=7"})
    found = await page.evaluate(
        f"import('/memory/live.js').then(m => [m.resumePoint({error}), m.resumePoint({other})])"
    )
    assert found == [42, None]
