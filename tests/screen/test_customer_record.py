"""The customer view answers for a person's memory, in headless Chromium against the real app
and Postgres: where each fact came from (channel, day, the quote it rests on; old rows as
unknown), who has read it, and an Export that saves the export route's document as a file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from memory.api import Memory
from memory.store import Read
from testkit.model_server import ModelServer
from tests.memory.helpers import add_op, update_op
from tests.rooms.browser import Page
from tests.screen.conftest import Client, auth
from tests.screen.screen import click, fill, sign_in, texts, wait_text
from tests.screen.seed import AWKWARD, UNICODE
from tests.waiting import eventually

S = "stackbone_platform"
HEARD = [
    {"role": "assistant", "content": "Hello, how can I help?"},
    {"role": "user", "content": "Please always email me, never call. I drive a Corolla."},
]
CALL = {
    "run_id": "job-7",
    "channel": "voice",
    "job_id": "job-7",
    "started_at": "2026-12-03T10:00:00+00:00",
}
CELLS = "[...document.querySelectorAll({!r})].map(r => [...r.cells].map(c => c.textContent))"
FILE = "memory-export-support-34_611_22_33_44.json"  # the id's safe form: no +, no spaces


async def rows(page: Page, selector: str) -> list[list[str]]:
    found: list[list[str]] = await page.evaluate(CELLS.format(selector))
    return found


async def seed(memory: Memory, model_server: ModelServer, pool: asyncpg.Pool) -> None:
    """AWKWARD: two facts from a voice call of 3 December (one quote found, one invented and
    dropped), then one updated over the add route; UNICODE: a fact from before provenance."""
    model_server.answer(
        [
            {
                **add_op("Prefers email."),
                "evidence": "always email me",
                "kind": "contact",
                "confidence": 0.9,
            },
            {**add_op("Drives a Corolla."), "evidence": "I own a Tesla"},  # not in what was sent
        ],
        "Asked for email.",
    )
    assert (await memory.add(HEARD, "support", AWKWARD, CALL)).error is None
    model_server.answer([add_op("Prefiere el teléfono.")], "Llamada corta.")
    assert (await memory.add("Llámame por teléfono.", "support", UNICODE)).error is None
    await pool.execute(f"update {S}.memory_facts set source = null where user_id = $1", UNICODE)


@pytest.fixture(name="seeded")
async def _seeded(memory: Memory, model_server: ModelServer, pool: asyncpg.Pool) -> None:
    await seed(memory, model_server, pool)


@pytest.fixture(name="downloads")
async def _downloads(page: Page, tmp_path: Path) -> Path:
    """The folder this page's downloads are saved in, under the names the page gives them."""
    target = await page.send("Target.getTargetInfo")
    await page.send(
        "Browser.setDownloadBehavior",
        behavior="allow",
        browserContextId=target["targetInfo"]["browserContextId"],
        downloadPath=str(tmp_path),
    )
    return tmp_path


def listed(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.iterdir())


def read_saved(path: Path) -> dict[str, Any] | None:
    """The saved document, None until it is there (Chromium writes <name>.crdownload first,
    then renames it)."""
    if not path.exists():
        return None
    document: dict[str, Any] = json.loads(path.read_text("utf-8"))
    return document


async def open_customer(page: Page, user_id: str) -> None:
    await fill(page, "open-user", user_id)
    await click(page, "open")
    await page.wait_for("!document.getElementById('reads').tBodies[0].hasAttribute('aria-busy')")


async def test_each_fact_says_where_it_came_from(
    page: Page, client: Client, memory: Memory, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    await seed(memory, model_server, pool)
    await sign_in(page, client, "support")
    await open_customer(page, AWKWARD)
    facts = {r[0]: r[1] for r in await rows(page, "#facts tbody tr")}
    email = facts["Prefers email."]
    assert email.startswith("From the call of 3 December 2026: “always email me”.")
    assert "kind: contact · confidence 90% · by the job job-7 · model " in email
    assert facts["Drives a Corolla."].startswith(
        "From the call of 3 December 2026 (no quote kept)."  # the invented quote was dropped
    )

    model_server.answer([update_op("f1", "Prefers email, never calls.")], "Confirmed.")
    response = await client.post(
        "/api/memory/customers/support/add",
        json={"userId": AWKWARD, "content": "Email only, please."},
        headers=auth(),
    )
    assert response.status == 200, await response.text()
    await open_customer(page, AWKWARD)
    (updated,) = [r[1] for r in await rows(page, "#facts tbody tr") if "never calls" in r[0]]
    assert updated.startswith("Saved through the API on ") and "by the API key operator" in updated
    history = await texts(page, "#history li")
    (closed,) = [h for h in history if h.startswith("Prefers email. ")]
    assert "From the call of 3 December 2026: “always email me”." in closed  # kept per version

    await open_customer(page, UNICODE)  # written before provenance
    assert [r[1] for r in await rows(page, "#facts tbody tr")] == ["Source unknown."]
    model_server.answer([add_op("Writes in English.")], "Short.")
    assert (await memory.add("Hi.", "support", "ana@example.com")).error is None
    await open_customer(page, "ana@example.com")  # a write that named no channel
    (unnamed,) = [r[1] for r in await rows(page, "#facts tbody tr")]
    assert unnamed.startswith("From a conversation of ")
    assert "(channel not recorded, no quote kept)." in unnamed and "by the agent support" in unnamed


@pytest.mark.usefixtures("seeded")
async def test_reads_and_export(page: Page, client: Client, downloads: Path) -> None:
    await sign_in(page, client, "support")
    await open_customer(page, AWKWARD)
    reads = await rows(page, "#reads tbody tr")  # opening the customer read it: newest first
    assert [r[1:] for r in reads[:2]] == [
        ["operator", "http", "history", "versions: 2"],
        ["operator", "http", "recall", "calls: 1, facts: 2"],
    ]
    assert reads[0][0].endswith(" UTC")

    await click(page, "export")
    status = await wait_text(page, "status", "Exported")
    assert status.startswith("Exported 2 fact(s), 1 call(s), 0 chat session(s) and 2 read(s): ")

    async def saved_file() -> dict[str, Any] | None:
        return read_saved(downloads / FILE)

    saved = await eventually(saved_file, "the export saved")
    assert listed(downloads) == [FILE]
    route = await exported(client, AWKWARD)
    for section in ("facts", "factVersions", "calls", "opsEvents", "chatSessions"):
        assert saved[section] == route[section], section
    assert (saved["agentId"], saved["userId"]) == ("support", AWKWARD)
    assert all(row["user_id"] == AWKWARD for row in saved["facts"] + saved["reads"])

    async def export_read() -> bool:  # recorded once the document was sent
        response = await client.post(
            "/api/memory/customers/support/reads", json={"userId": AWKWARD}, headers=auth()
        )
        return "export" in [r["route"] for r in (await response.json())["reads"]]

    await eventually(export_read, "the export's read recorded")
    await open_customer(page, AWKWARD)
    assert "export" in [r[3] for r in await rows(page, "#reads tbody tr")]


async def test_the_newest_50_reads_are_shown(page: Page, client: Client, memory: Memory) -> None:
    """At the limit every read is listed; past it the oldest are left out."""
    for n in range(48):
        assert await memory.note_read(Read("support", AWKWARD, "cli", "cli", f"old-{n}", {}))
    await sign_in(page, client, "support")
    await open_customer(page, AWKWARD)  # its recall and history: 50 reads in all
    listed_reads = await rows(page, "#reads tbody tr")
    assert len(listed_reads) == 50 and listed_reads[-1][1:] == ["cli", "cli", "old-0", "nothing"]
    await open_customer(page, AWKWARD)  # 52
    routes = [r[3] for r in await rows(page, "#reads tbody tr")]
    assert len(routes) == 50 and routes[-1] == "old-2"


@pytest.mark.usefixtures("seeded")
async def test_an_export_cut_short_is_not_saved(
    page: Page, client: Client, pool: asyncpg.Pool, downloads: Path
) -> None:
    """The server cuts the document when a step passes its deadline (here a table locked
    past it): its JSON does not close, and the console says so and saves nothing."""
    await sign_in(page, client, "support")
    await open_customer(page, AWKWARD)
    async with pool.acquire() as conn, conn.transaction():
        await conn.execute(f"lock table {S}.memory_idempotency in access exclusive mode")
        await click(page, "export")
        error = await page.wait_for("document.getElementById('error').textContent")
    assert error == "The export was cut short by the server; nothing was saved. Try again."
    assert listed(downloads) == []


async def exported(client: Client, user_id: str) -> dict[str, Any]:
    response = await client.post(
        "/api/memory/customers/support/export", json={"userId": user_id}, headers=auth()
    )
    assert response.status == 200
    document: dict[str, Any] = json.loads(await response.text())
    return document


NAMES = """import("/memory/export.js").then(m => [
  m.exportFileName("support", "José Ñúñez"),
  m.exportFileName("sales", "../../etc/passwd"),
  m.exportFileName("support", " +++ "),
  m.exportFileName("support", "7".repeat(64)),
  m.exportFileName("support", "7".repeat(65)),
  m.exportFileName("support", "😀"),
  m.exportFileName("support", "𠀀".repeat(65)),
])"""


async def test_the_file_name_is_a_safe_form_of_the_ids(page: Page, client: Client) -> None:
    """Letters and digits of any script, `_` and `-`; any other run is one `_`, trimmed; an
    id with none of them is `customer`; at most 64 characters of the id."""
    await page.goto(str(client.make_url("/memory/")), ready="window.memoryScreen")
    assert await page.evaluate(NAMES) == [
        "memory-export-support-José_Ñúñez.json",
        "memory-export-sales-etc_passwd.json",
        "memory-export-support-customer.json",
        f"memory-export-support-{'7' * 64}.json",
        f"memory-export-support-{'7' * 64}.json",
        "memory-export-support-customer.json",  # an emoji is neither a letter nor a digit
        f"memory-export-support-{'𠀀' * 64}.json",  # characters, never half of one
    ]
