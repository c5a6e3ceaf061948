"""The Sessions and Collections views, dates in the agent's time zone, and the live feed, in
headless Chromium against the real app (chat wire, document routes, ops log) and Postgres."""

from __future__ import annotations

import json
import re

from memory.api import Memory
from testkit.model_server import ModelServer
from tests.memory.helpers import add_op
from tests.rooms.browser import Page
from tests.screen.conftest import Client, auth
from tests.screen.screen import click, fill, sign_in, text, texts, wait_text
from tests.screen.seed import (
    AWKWARD,
    RETURNS,
    SESSION_KEY,
    UNICODE,
    seed_memory,
    seed_session,
)

ROWS = "[...document.querySelectorAll({!r})].map(r => [...r.cells].map(c => c.textContent))"


async def rows(page: Page, selector: str) -> list[list[str]]:
    found: list[list[str]] = await page.evaluate(ROWS.format(selector))
    return found


async def test_sessions_newest_first_and_one_opened(
    page: Page, full_client: Client, model_server: ModelServer
) -> None:
    await sign_in(page, full_client, "support")
    await click(page, "tab-sessions")
    await wait_text(page, "status", "0 session(s)")
    assert await texts(page, "#sessions-list tbody td") == ["No chat sessions for this agent yet."]

    await seed_session(full_client, model_server)
    model_server.answer_text("Hello again.")
    response = await full_client.post(
        "/v1/chat/completions",
        json={"model": "support", "messages": [{"role": "user", "content": "Hi"}]},
        headers={**auth(), "x-stackbone-session": "later-chat"},
    )
    assert response.status == 200
    await click(page, "sessions-refresh")
    await wait_text(page, "status", "2 session(s)")
    listed = await rows(page, "#sessions-list tbody tr")
    assert [r[2] for r in listed] == ["later-chat", SESSION_KEY]  # most recently used first
    assert listed[1][3:5] == [AWKWARD, "2"] and listed[0][3] == "—"
    assert listed[0][0].endswith(" UTC")

    await page.evaluate("document.querySelectorAll('#sessions-list .open-session')[1].click()")
    await wait_text(page, "status", "2 turn(s)")
    assert await text(page, "session-key") == SESSION_KEY
    turns = await texts(page, "#turns > li")
    assert "Is my Corolla booked for Friday?" in turns[0] and "Yes, Friday at 9:00." in turns[0]
    assert "Turn 1 ·" in turns[0] and "Turn 2 ·" in turns[1]
    assert "Can I bring it at 8?" in turns[1] and "The workshop opens at 8:30." in turns[1]
    for turn in turns:  # tokens and duration as recorded
        assert " in / " in turn and " out tokens" in turn and " ms" in turn
    assert AWKWARD in await text(page, "session-meta")

    await click(page, "session-delete")  # behind a confirmation
    assert await page.evaluate("document.activeElement.id") == "session-confirm-button"
    await click(page, "session-cancel")
    await click(page, "session-delete")
    await click(page, "session-confirm-button")
    await wait_text(page, "status", f"Deleted the session {SESSION_KEY}.")
    assert [r[2] for r in await rows(page, "#sessions-list tbody tr")] == ["later-chat"]
    assert await page.evaluate("document.getElementById('session').hidden")


UPLOAD = (
    "(() => {{ const t = new DataTransfer();"
    " t.items.add(new File([{body}], {name}, {{type: {kind}}}));"
    " document.getElementById('upload-file').files = t.files; }})()"
)


async def choose_file(page: Page, name: str, body: str, kind: str) -> None:
    """Put a file in the upload field, as choosing it in the file dialog does."""
    await page.evaluate(UPLOAD.format(body=json.dumps(body), name=json.dumps(name), kind=kind))


async def test_collections_upload_search_download_delete(page: Page, full_client: Client) -> None:
    await sign_in(page, full_client, "support")
    await click(page, "tab-collections")
    await wait_text(page, "status", "0 collection(s)")
    assert "No collections yet" in await text(page, "collections-list")

    await fill(page, "upload-namespace", "help")
    await choose_file(page, "returns.md", RETURNS, "'text/markdown'")
    await click(page, "upload")
    await wait_text(page, "status", "Uploaded Returns policy")
    await page.wait_for(
        "!!document.querySelector('#documents .badge.ready')"
    )  # pending, then ready
    (document,) = await rows(page, "#documents tbody tr")
    assert document[:6] == ["Returns policy", "returns.md", "text/markdown", "156 B", "ready", "1"]
    assert document[6] == "test-embedding"
    assert await rows(page, "#collections-list tbody tr") == [
        [
            "help",
            "test-embedding",
            "512",
            "1",
            (await rows(page, "#collections-list tbody tr"))[0][4],
        ]
    ]

    await fill(page, "docs-query", "refund card")
    await click(page, "docs-search")
    await wait_text(page, "status", "1 hit(s)")
    hit = (await texts(page, "#docs-hits > li"))[0]
    assert re.match(r"score [01]\.\d{3} · Returns policy · chunk 0 · returns\.md", hit), hit
    assert "Refunds reach the original card" in hit
    assert await text(page, "docs-model") == "Model: test-embedding · collection help"

    await page.evaluate("document.querySelector('#documents button[aria-label^=Download]').click()")
    status = await wait_text(page, "status", "Downloaded")
    assert status == f"Downloaded Returns policy ({len(RETURNS.encode())} bytes, text/markdown)."

    await choose_file(page, "virus.exe", "MZ", "'application/x-msdownload'")
    await click(page, "upload")
    error = await page.wait_for("document.getElementById('error').textContent")
    assert error.startswith("content_type: must be one of text/plain"), error
    assert len(await rows(page, "#documents tbody tr")) == 1  # the refused upload left nothing

    await page.evaluate("document.querySelector('#documents button[aria-label^=Delete]').click()")
    await page.evaluate("document.querySelector('#documents button.danger').click()")  # confirm
    await wait_text(page, "status", "Deleted Returns policy")
    assert "No documents" in await text(page, "documents")
    listed = await (
        await full_client.get("/api/documents/collections/help/documents", headers=auth())
    ).json()
    assert listed["documents"] == []


async def test_dates_show_the_agent_time_zone(
    page: Page, client: Client, memory: Memory, model_server: ModelServer
) -> None:
    await seed_memory(memory, model_server)
    response = await client.put(
        "/api/memory/settings/support", json={"timeZone": "Europe/Madrid"}, headers=auth()
    )
    assert response.status == 200
    await sign_in(page, client, "support")
    await fill(page, "open-user", AWKWARD)
    await click(page, "open")
    await wait_text(page, "status", "2 call(s)")
    calls = await texts(page, "#calls li .meta")
    assert calls[0].startswith("2026-11-20 17:30 Europe/Madrid · scheduled")  # 16:30 UTC
    await fill(page, "agent", "sales")  # an agent without a zone: UTC
    await wait_text(page, "settings-agent", "sales")
    await click(page, "tab-settings")
    zone = (
        "[document.getElementById('setting-timeZone')].map(e => e.value + '|' + e.placeholder)[0]"
    )
    assert await page.evaluate(zone) == "|UTC"


async def test_live_feed_shows_adds_and_updates_the_open_customer(
    page: Page, client: Client, memory: Memory, model_server: ModelServer
) -> None:
    await seed_memory(memory, model_server)
    await sign_in(page, client, "support")
    await page.evaluate("window.stillTheSamePage = true")
    await click(page, "tab-live")
    await page.wait_for("document.querySelectorAll('#live-events li[data-event-id]').length === 3")
    await click(page, "tab-customers")
    await fill(page, "open-user", UNICODE)
    await click(page, "open")
    await wait_text(page, "status", "1 fact(s)")

    model_server.answer([add_op("Tiene un Seat Ibiza gris.")], "Llamada sobre el coche.")
    result = await memory.add("Something worth keeping.", "support", UNICODE, {})
    assert result.error is None
    await wait_text(page, "customer-live", "2 fact(s)")  # in place, no reload
    facts = await rows(page, "#facts tbody tr")
    assert sorted(f[0] for f in facts) == [
        "Prefiere el teléfono por la tarde.",
        "Tiene un Seat Ibiza gris.",
    ]
    fresh = await texts(page, "#facts tbody tr.fresh td:first-child")
    assert fresh == ["Tiene un Seat Ibiza gris."]  # the new fact is marked
    assert await page.evaluate("window.stillTheSamePage === true")

    model_server.answer([add_op("Drives at night.")], "Another customer.")
    assert (await memory.add("Something.", "support", AWKWARD, {})).error is None
    await page.wait_for("document.querySelectorAll('#live-events li[data-event-id]').length === 5")
    newest = await texts(page, "#live-events > li")
    assert AWKWARD in newest[0] and "add “Drives at night.”" in newest[0]
    assert UNICODE in newest[1] and "Seat Ibiza" in newest[1]
    assert len(await rows(page, "#facts tbody tr")) == 2  # another customer's event: no change
    assert await page.evaluate("window.stillTheSamePage === true")

    await page.evaluate("document.querySelector('#live-events li button').click()")  # its customer
    await wait_text(page, "customer-id", AWKWARD)
    assert await page.evaluate("document.getElementById('customers').hidden") is False


async def test_a_view_the_key_may_not_read_shows_its_error_state(
    page: Page, client: Client
) -> None:
    """A key with the configuration scopes only: the lists it may not read say so in place."""
    await sign_in(page, client, "support", key="config")
    for view, table in (("sessions", "sessions-list"), ("collections", "collections-list")):
        await click(page, f"tab-{view}")
        failed = await page.wait_for(
            f"document.querySelector('#{table} td.failed')?.textContent || ''"
        )
        assert failed.startswith("Could not load: ") and "scope" in failed, failed
        assert await text(page, "error") != ""  # and the alert line
    await click(page, "tab-settings")
    assert await text(page, "error") == ""  # a view it may read: no error left behind
