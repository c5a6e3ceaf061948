"""The Memory screen's per-agent Memory tab and the extraction settings, in headless Chromium."""

from __future__ import annotations

from typing import Any

from tests.rooms.browser import Page
from tests.screen.conftest import CODE_INSTRUCTIONS, Client, auth
from tests.screen.screen import choose_agent, click, fill, prop, sign_in, text, wait_text

SETTINGS = "/api/memory/settings/{}"


async def _stored(client: Client, agent: str) -> dict[str, Any]:
    response = await client.get(SETTINGS.format(agent), headers=auth())
    assert response.status == 200
    body: dict[str, Any] = await response.json()
    return body


async def test_fields_show_their_origin_save_and_reset(page: Page, client: Client) -> None:
    await sign_in(page, client, "support")
    await click(page, "tab-settings")
    assert await prop(page, "settings", "hidden") is False
    assert await prop(page, "customers", "hidden") is True
    assert await prop(page, "setting-read", "checked") is True
    assert await text(page, "origin-read") == "Origin: from the agent's code"
    assert await prop(page, "setting-instructions", "value") == CODE_INSTRUCTIONS
    assert await text(page, "origin-save") == "Origin: platform default"

    await page.evaluate("document.getElementById('setting-read').checked = false")
    await fill(page, "setting-instructions", "Keep only the booking reference.")
    await fill(page, "setting-remember", "preferred callback time\n\n  car model  ")
    await click(page, "settings-save")
    await wait_text(page, "status", "Saved: read, instructions, remember.")
    assert await text(page, "origin-read") == "Origin: set here"
    assert await text(page, "origin-remember") == "Origin: set here"
    stored = await _stored(client, "support")
    assert stored["overrides"] == {
        "read": False,
        "instructions": "Keep only the booking reference.",
        "remember": ["preferred callback time", "car model"],
    }

    await page.evaluate("document.querySelector('button.reset[data-field=read]').click()")
    await wait_text(page, "status", "Reset read.")
    assert await text(page, "origin-read") == "Origin: from the agent's code"
    assert await prop(page, "setting-read", "checked") is True
    assert set((await _stored(client, "support"))["overrides"]) == {
        "instructions",
        "remember",
    }

    await fill(page, "setting-instructions", "")  # below the minimum length: the API says so
    await click(page, "settings-save")
    error = await page.wait_for("document.getElementById('error').textContent")
    assert "instructions" in error
    assert (await _stored(client, "support"))["overrides"]["instructions"] == (
        "Keep only the booking reference."
    )


async def test_retention_shows_saves_and_clears_each_kind(page: Page, client: Client) -> None:
    await sign_in(page, client, "support")
    await click(page, "tab-settings")
    assert await prop(page, "retention-calls", "value") == ""  # kept until deleted
    await fill(page, "retention-calls", "90")
    await fill(page, "retention-journals", "7")
    await click(page, "retention-save")
    await wait_text(page, "status", "Saved retention: calls, journals.")
    kept = await client.get(f"{SETTINGS.format('support')}/retention", headers=auth())
    assert (await kept.json())["calls"] == 90
    await fill(page, "retention-calls", "")
    await fill(page, "retention-ops", "36501")  # past the limit: the API says so
    await click(page, "retention-save")
    error = await page.wait_for("document.getElementById('error').textContent")
    assert error.startswith("ops: must be a whole number of days"), error
    await fill(page, "retention-ops", "")
    await click(page, "retention-save")
    await wait_text(page, "status", "Saved retention: calls.")
    kept = await client.get(f"{SETTINGS.format('support')}/retention", headers=auth())
    assert await kept.json() == {
        "agentId": "support",
        "calls": None,
        "sessions": None,
        "ops": None,
        "reads": None,
        "journals": 7,
    }


async def test_identity_key_is_chosen_once_behind_a_confirmation(
    page: Page, client: Client
) -> None:
    await sign_in(page, client, "support")
    await click(page, "tab-settings")
    assert "Fixed as phoneNumber" in await text(page, "identity-current")
    assert await prop(page, "identity-choose", "hidden") is True  # bound by code: no chooser

    await choose_agent(page, "sales")
    assert "Not chosen yet" in await text(page, "identity-current")
    await fill(page, "identity-key", "contact.email")
    await click(page, "identity-next")
    assert await prop(page, "identity-confirm", "hidden") is False
    assert await text(page, "identity-proposed") == "contact.email"
    await click(page, "identity-cancel")
    assert await prop(page, "identity-confirm", "hidden") is True
    assert (await _stored(client, "sales"))["binding"] is None  # nothing until confirmed

    await click(page, "identity-next")
    await click(page, "identity-confirm-button")
    await wait_text(page, "identity-current", "Fixed as contact.email")
    assert (await _stored(client, "sales"))["binding"]["identityKey"] == "contact.email"

    # another operator fixes billing's key while this screen still offers the choice
    await choose_agent(page, "billing")
    await fill(page, "identity-key", "phoneNumber")
    await click(page, "identity-next")
    response = await client.put(
        SETTINGS.format("billing"), json={"identityKey": "customerId"}, headers=auth()
    )
    assert response.status == 200
    await click(page, "identity-confirm-button")
    message = await wait_text(page, "identity-message", "already fixed")
    assert "customerId" in message and "can never change" in message
    assert await text(page, "error") == ""  # an explanation, not an error dump
    assert "Fixed as customerId" in await text(page, "identity-current")


async def test_extraction_guidance_and_model(page: Page, client: Client) -> None:
    await sign_in(page, client, "support")
    await click(page, "tab-extraction")
    await wait_text(page, "guidance-state", "built-in")
    await fill(page, "guidance-draft", "Prefer the caller's own words.")
    await click(page, "guidance-save")
    await wait_text(page, "status", "Draft saved")
    assert "built-in" in await text(page, "guidance-state")  # a draft never runs

    await click(page, "guidance-publish")
    await wait_text(page, "guidance-state", "guidance published")
    extraction = await (await client.get("/api/memory/extraction", headers=auth())).json()
    assert extraction["guidance"]["published"] == "Prefer the caller's own words."

    await click(page, "guidance-reset")
    await wait_text(page, "guidance-state", "built-in")

    await fill(page, "model", "gpt-5-mini")
    await fill(page, "effort", "low")
    await click(page, "model-save")
    await wait_text(page, "status", "Model selection saved.")
    extraction = await (await client.get("/api/memory/extraction", headers=auth())).json()
    assert (extraction["model"], extraction["reasoningEffort"]) == ("gpt-5-mini", "low")
    assert "Platform default" in await text(page, "model-default")

    await fill(page, "model", "")
    await fill(page, "effort", "")
    await click(page, "model-save")
    await wait_text(page, "status", "Model selection saved.")
    extraction = await (await client.get("/api/memory/extraction", headers=auth())).json()
    assert (extraction["model"], extraction["reasoningEffort"]) == (None, None)
