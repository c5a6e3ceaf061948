"""The live feed: an add through the memory API appears without a reload, read from the ops
stream; a dropped connection (a proxy cut under the browser) resumes from the last event id;
the event-stream parser the page runs (its own module, imported in the browser) over chunks
cut anywhere, CRLF lines, comments and multi-line data; an expired cursor's resume point."""

from __future__ import annotations

import json

from memory.api import Memory
from memory.contract import CursorExpired
from testkit.model_server import ModelServer
from tests.memory.helpers import add_op
from tests.rooms.browser import Page
from tests.screen.conftest import Client
from tests.screen.proxy import proxy_to
from tests.screen.screen import click, requested_urls, sign_in, text, wait_text
from tests.screen.seed import AWKWARD, seed_memory

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


EVENTS = (
    "[...document.querySelectorAll('#live-events li[data-event-id]')].map(e => e.dataset.eventId)"
)


async def events_shown(page: Page, count: int) -> list[str]:
    """The event ids the Live view lists, newest first, once there are `count` of them."""
    await page.wait_for(f"{EVENTS}.length >= {count}")
    shown: list[str] = await page.evaluate(EVENTS)
    return shown


async def test_an_add_appears_live_on_the_stream(
    page: Page, client: Client, memory: Memory, model_server: ModelServer
) -> None:
    await seed_memory(memory, model_server)
    await sign_in(page, client, "support")
    await click(page, "tab-live")
    assert await events_shown(page, 3) == ["3", "2", "1"]
    await page.evaluate("window.stillTheSamePage = true")
    model_server.answer([add_op("Pays by card.")], "A short call.")
    assert (await memory.add("Something.", "support", AWKWARD, {})).error is None
    assert await events_shown(page, 4) == ["4", "3", "2", "1"]
    assert "Pays by card." in await text(page, "live-events")
    assert await page.evaluate("window.stillTheSamePage === true")  # no reload
    urls = await requested_urls(page)
    assert not any("/api/memory/ops?" in u for u in urls)  # the stream, not the polled log
    assert "connected" in await text(page, "feed-state")


async def test_a_dropped_connection_resumes_from_its_cursor(
    page: Page, client: Client, memory: Memory, model_server: ModelServer
) -> None:
    await seed_memory(memory, model_server)
    assert client.server.host is not None and client.server.port is not None
    async with proxy_to(client.server.host, client.server.port) as proxy:
        url = f"http://127.0.0.1:{proxy.port}/memory/"
        await sign_in(page, client, "support", url=url)
        await click(page, "tab-live")
        assert await events_shown(page, 3) == ["3", "2", "1"]
        proxy.cut()  # the network drops while the stream is open
        await wait_text(page, "feed-state", "reconnecting")
        model_server.answer([add_op("Moved to Bilbao.")], "Said while the feed was down.")
        assert (await memory.add("Something.", "support", AWKWARD, {})).error is None
        await wait_text(page, "feed-state", "reconnecting")
        proxy.restore()
        assert await events_shown(page, 4) == ["4", "3", "2", "1"]  # missed nothing, nothing twice
        streams = [p for p in proxy.paths if p.startswith("/api/memory/ops/stream")]
        assert streams[0] == "/api/memory/ops/stream?agentId=support&after=0"
        assert streams[-1] == "/api/memory/ops/stream?agentId=support&after=3"  # its cursor
        assert "Moved to Bilbao." in await text(page, "live-events")
