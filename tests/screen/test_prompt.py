"""The agent's prompt in the Playground, in headless Chromium against the real app: the code's
instructions shown and running, a draft saved and tried in the Playground before it is
published (other conversations still run the code's), then published (who published is in the
activity log) and reset."""

from __future__ import annotations

from testkit.model_server import ModelServer
from tests.rooms.browser import Page
from tests.screen.accessibility import axe_source, violations
from tests.screen.conftest import Client, auth
from tests.screen.refunds import AGENT, REFUNDS
from tests.screen.screen import click, fill, prop, sign_in, wait_text
from tests.screen.test_playground import send

DRAFT = "You handle refunds for Maria's bakery. Always mention the receipt."


def system_sent(model_server: ModelServer) -> str:
    [system] = [m for m in model_server.requests[-1]["messages"] if m["role"] == "system"]
    text: str = system["content"]
    return text


async def talk(page: Page, model_server: ModelServer) -> str:
    """A new conversation, one message: the system text the model got."""
    await click(page, "playground-new")
    await wait_text(page, "playground-thread", "new conversation")
    model_server.answer_text("Hello.")
    await send(page, "Hi there.")
    await wait_text(page, "status", "Reply complete.")
    return system_sent(model_server)


async def test_a_draft_tried_in_the_playground_then_published_and_reset(
    page: Page, shop_client: Client, model_server: ModelServer
) -> None:
    await sign_in(page, shop_client, AGENT)
    await click(page, "tab-playground")
    await wait_text(page, "prompt-state", "Running: the instructions in the agent's code.")
    assert await prop(page, "prompt-draft", "value") == REFUNDS.instructions
    assert await violations(page, axe_source()) == [], "the prompt panel"

    await fill(page, "prompt-draft", DRAFT)
    await click(page, "prompt-save")
    await wait_text(page, "status", "Draft saved")
    await click(page, "prompt-try")
    assert DRAFT in await talk(page, model_server)  # the Playground runs the draft
    await click(page, "prompt-try")
    assert REFUNDS.instructions in await talk(page, model_server)  # not published yet

    await click(page, "prompt-publish")
    await wait_text(page, "prompt-state", "Running: the prompt published by operator")
    assert DRAFT in await talk(page, model_server)
    response = await shop_client.get(
        "/api/memory/activity", params={"agentId": AGENT}, headers=auth()
    )
    found = (await response.json())["entries"]
    assert ("operator", "publish", ["promptPublished"]) in [
        (e["actor"], e["action"], e["fields"]) for e in found
    ]

    await click(page, "prompt-reset")
    await wait_text(page, "prompt-state", "Running: the instructions in the agent's code.")
    assert REFUNDS.instructions in await talk(page, model_server)
