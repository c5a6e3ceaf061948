"""The Playground in headless Chromium against the real app: a message sent over the AG-UI wire
streams in, a held tool is approved inline and its result shown, and a session is continued
from the Sessions view (its run detail shown there first); an agent this process cannot run is
said so."""

from __future__ import annotations

import json

import asyncpg

from callmemory.registration import register_agents
from memory.settings import CodeDefaults
from memory.store import Declared
from testkit.model_server import ModelServer, Reply
from tests.rooms.browser import Page
from tests.screen.accessibility import axe_source, violations
from tests.screen.conftest import Client, auth
from tests.screen.refunds import AGENT, CUSTOMER, calls, openai_turn, park_refund
from tests.screen.screen import (
    choose_agent,
    click,
    fill,
    press,
    prop,
    sign_in,
    text,
    texts,
    type_text,
    wait_text,
)
from tests.screen.test_views import rows
from tests.waiting import eventually

KEY = "web-thread-1"


async def test_a_session_shows_its_run_and_continues_in_the_playground(
    page: Page, shop_client: Client, model_server: ModelServer
) -> None:
    await park_refund(shop_client, model_server, KEY, auth())
    await sign_in(page, shop_client, AGENT)
    await click(page, "tab-sessions")
    await wait_text(page, "status", "1 session(s)")
    await page.evaluate("document.querySelector('#sessions-list .open-session').click()")
    await wait_text(page, "status", "turn(s)")
    (turn,) = await texts(page, "#turns > li")  # the parked turn is recorded once decided
    assert "Tool calls (1)" in turn and "Tool lookup_order · " in turn and " ms" in turn
    assert '"order_id": "A-1"' in turn and "order A-1: delivered" in turn

    await click(page, "session-continue")
    await wait_text(page, "playground-thread", KEY)
    assert f"customerId: {CUSTOMER}" in await text(page, "playground-thread")
    await wait_text(page, "status", "issue_refund is waiting for your decision")
    log = await texts(page, "#playground-log > li")
    assert "Where is order A-1?" in log[0] and "order A-1: delivered" in log[1]
    assert "Order A-1 was delivered." in log[2]
    assert "Tool issue_refund · held" in log[3] and '"amount": 500' in log[3]
    assert await violations(page, axe_source()) == [], "a pending decision"

    model_server.answer_text("Refunded 5.00 on A-1.")
    await page.evaluate("document.querySelector('.decision button').click()")  # Approve
    await wait_text(page, "status", "Reply complete.")
    log = await texts(page, "#playground-log > li")
    assert " · approved" in log[3] and "refunded 500 on A-1" in log[3]
    assert "Refunded 5.00 on A-1." in log[4]
    model_server.answer_text("You are welcome.")
    await send(page, "Thanks!")
    await wait_text(page, "status", "Reply complete.")
    assert "You are welcome." in (await texts(page, "#playground-log > li"))[-1]
    listed = await (await shop_client.get(f"/api/chat/sessions/{AGENT}", headers=auth())).json()
    [session] = listed["sessions"]  # the same thread all along
    assert (session["key"], session["turns"]) == (KEY, 3)
    sent = model_server.requests[-1]["messages"]
    assert [m["role"] for m in sent][-3:] == ["tool", "assistant", "user"]  # the thread went on


WATCH = """(() => {
  window.seen = [];
  const log = document.getElementById('playground-log');
  new MutationObserver(() => {
    const reply = log.querySelector('.msg.assistant:not(.earlier)');
    if (reply) window.seen.push([reply.textContent,
      document.getElementById('playground-live').getAttribute('aria-busy')]);
  }).observe(log, {subtree: true, childList: true, characterData: true});
})()"""
REPLY = "Order A-1 left the warehouse on Monday and arrives tomorrow."


async def click_text(page: Page, selector: str, label: str) -> None:
    """Click the first `selector` whose text is `label`."""
    await page.evaluate(
        f"[...document.querySelectorAll({json.dumps(selector)})]"
        f".find(e => e.textContent === {json.dumps(label)}).click()"
    )


async def send(page: Page, message: str) -> None:
    """Type into the message box and press Enter, as an operator does."""
    await page.evaluate("document.getElementById('playground-message').focus()")
    await type_text(page, message)
    await press(page, "Enter")


async def test_a_message_streams_in(
    page: Page, shop_client: Client, model_server: ModelServer
) -> None:
    await sign_in(page, shop_client, AGENT)
    await click(page, "tab-playground")
    thread = await wait_text(page, "playground-thread", "new conversation")
    await fill(page, "playground-customer", CUSTOMER)
    await page.evaluate(WATCH)
    model_server.answer_text(REPLY, pace=0.1)  # a word every 100 ms
    await send(page, "Where is order A-1?")
    await wait_text(page, "status", "Reply complete.")
    seen = await page.evaluate("window.seen")
    texts_seen = [t for t, _ in seen]
    assert texts_seen[-1] == AGENT + REPLY
    partial = [t for t, busy in seen if busy == "true" and t != AGENT + REPLY]
    assert len(set(partial)) >= 3, seen  # drawn word by word while the run was busy
    assert await page.evaluate("document.getElementById('playground-live').ariaBusy") == "false"
    assert await prop(page, "playground-message", "value") == ""
    assert await prop(page, "playground-customer", "disabled") is True  # fixed with the turn

    # the thread is a session of that customer, listed under Sessions
    key = thread.split(" ")[1]
    listed = await (await shop_client.get(f"/api/chat/sessions/{AGENT}", headers=auth())).json()
    assert [(s["key"], s["identities"]) for s in listed["sessions"]] == [
        (key, {"customerId": CUSTOMER})
    ]
    await click(page, "playground-new")
    assert key not in await wait_text(page, "playground-thread", "new conversation")
    assert await texts(page, "#playground-log > li") == []


async def test_a_held_tool_approved_inline(
    page: Page, shop_client: Client, model_server: ModelServer
) -> None:
    await sign_in(page, shop_client, AGENT)
    await click(page, "tab-playground")
    await wait_text(page, "playground-thread", "new conversation")
    calls(model_server, "lookup_order", {"order_id": "A-1"}, "call_lookup")
    calls(model_server, "issue_refund", {"order_id": "A-1", "amount": 500}, "call_refund")
    await send(page, "Refund order A-1.")
    await wait_text(page, "status", "issue_refund is waiting for your decision.")
    log = await texts(page, "#playground-log > li")
    assert "Tool lookup_order · " in log[1] and "order A-1: delivered" in log[1]
    assert "Tool issue_refund · held" in log[2] and '"amount": 500' in log[2]
    assert await violations(page, axe_source()) == [], "a held tool"
    assert await page.evaluate("document.activeElement.textContent") == "Approve"

    model_server.answer_text("Refunded 5.00 on order A-1.")
    await press(page, "Enter")  # Approve, from the keyboard
    await wait_text(page, "status", "Reply complete.")
    log = await texts(page, "#playground-log > li")
    assert "Tool issue_refund · " in log[2] and " · approved" in log[2]
    assert "refunded 500 on A-1" in log[2]
    assert "Refunded 5.00 on order A-1." in log[3]
    assert await page.evaluate("document.querySelectorAll('.decision').length") == 0


async def test_a_message_refused_while_a_decision_is_pending(
    page: Page, shop_client: Client, model_server: ModelServer
) -> None:
    """The session parked on another wire after the Playground opened it: the message is refused
    (409 before any stream), its text goes back into the box and the pending call is shown."""
    model_server.answer_text("Hello.")
    await openai_turn(shop_client, "Hi.", KEY, auth())
    await sign_in(page, shop_client, AGENT)
    await click(page, "tab-sessions")
    await wait_text(page, "status", "1 session(s)")
    await page.evaluate("document.querySelector('#sessions-list .open-session').click()")
    await wait_text(page, "status", "1 turn(s)")
    await click(page, "session-continue")
    await wait_text(page, "playground-thread", KEY)

    calls(model_server, "issue_refund", {"order_id": "A-9", "amount": 100}, "call_refund")
    await openai_turn(shop_client, "Refund A-9.", KEY, auth())  # parks, elsewhere
    await send(page, "And order A-10?")
    await wait_text(page, "status", "issue_refund is waiting for your decision")
    assert await prop(page, "playground-message", "value") == "And order A-10?"
    log = await texts(page, "#playground-log > li")
    assert not any("And order A-10?" in item for item in log)  # nothing was recorded
    assert "Tool issue_refund · held" in log[-1] and '"order_id": "A-9"' in log[-1]
    assert len(model_server.requests) == 2  # the refused message reached no model


async def test_a_held_tool_edited_then_another_rejected(
    page: Page, shop_client: Client, model_server: ModelServer
) -> None:
    await sign_in(page, shop_client, AGENT)
    await click(page, "tab-playground")
    await wait_text(page, "playground-thread", "new conversation")
    calls(model_server, "issue_refund", {"order_id": "A-1", "amount": 500}, "call_one")
    await send(page, "Refund order A-1.")
    await wait_text(page, "status", "issue_refund is waiting for your decision.")
    await click_text(page, ".decision button", "Edit arguments…")
    field = await page.evaluate("document.activeElement.id")
    assert field.endswith("-arguments")  # the field takes the focus
    await fill(page, field, "{not json")
    await click_text(page, ".decision button", "Approve with these arguments")
    error = await page.wait_for("document.getElementById('error').textContent")
    assert error.startswith("The edited arguments are not JSON") and "(field: editedArgs)" in error
    assert await violations(page, axe_source()) == [], "editing arguments"
    await fill(page, field, '{"order_id": "A-1", "amount": 250}')
    model_server.answer_text("Refunded 2.50.")
    await click_text(page, ".decision button", "Approve with these arguments")
    await wait_text(page, "status", "Reply complete.")
    log = await texts(page, "#playground-log > li")
    assert " · approved with edited arguments" in log[1] and "refunded 250 on A-1" in log[1]

    calls(model_server, "issue_refund", {"order_id": "B-2", "amount": 900}, "call_two")
    await send(page, "And order B-2.")
    await wait_text(page, "status", "issue_refund is waiting for your decision.")
    await click_text(page, ".decision button", "Reject…")
    field = await page.evaluate("document.activeElement.id")
    assert field.endswith("-message")
    await fill(page, field, "No receipt for B-2.")
    model_server.answer_text("I cannot refund B-2 without a receipt.")
    await click_text(page, ".decision button", "Reject the call")
    await wait_text(page, "status", "Reply complete.")
    log = await texts(page, "#playground-log > li")
    assert " · rejected" in log[-2] and "No receipt for B-2." in log[-2]
    tool = [m for m in model_server.requests[-1]["messages"] if m["role"] == "tool"][-1]
    assert tool["tool_call_id"] == "call_two" and "No receipt for B-2." in tool["content"]


async def test_failed_runs_say_so_in_the_alert_line(
    page: Page, shop_client: Client, model_server: ModelServer
) -> None:
    """Refused before the stream (the model failed at once): the API's message, the text back
    in the box. Failed mid-stream (RUN_ERROR): said so, the reply so far kept."""
    await sign_in(page, shop_client, AGENT)
    await click(page, "tab-playground")
    await wait_text(page, "playground-thread", "new conversation")
    model_server.fail(500)
    await send(page, "Where is order A-1?")
    error = await page.wait_for("document.getElementById('error').textContent")
    assert error == "the conversation model answered 500"
    assert await prop(page, "playground-message", "value") == "Where is order A-1?"
    assert await texts(page, "#playground-log > li") == []
    assert await prop(page, "playground-send", "disabled") is False  # ready for another try

    await fill(page, "playground-message", "")
    model_server.replies.append(Reply(content="Order A-1 is on its way.", cut_after=3, pace=0.05))
    await send(page, "Where is order A-1?")
    error = await wait_text(page, "error", "The run failed: ")
    log = await texts(page, "#playground-log > li")
    assert "Where is order A-1?" in log[0] and log[1].startswith(AGENT + "Order")
    assert await prop(page, "playground-stop", "hidden") is True


async def test_an_agent_this_process_cannot_run_is_said_so_and_not_sent_to(
    page: Page, shop_client: Client, pool: asyncpg.Pool
) -> None:
    """An agent only an attached worker declared: the Playground names why it cannot talk to
    it here and keeps Send off; choosing a loaded agent takes the notice away."""
    desk = Declared("front-desk", CodeDefaults(read=True), (), ())
    await register_agents(pool, [desk], "worker desk.py", "worker")

    async def listed() -> bool:  # the app reads the registry again about once a second
        body = await (await shop_client.get("/api/memory/agents", headers=auth())).json()
        return "front-desk" in {a["agentId"] for a in body["agents"]}

    await eventually(listed, "the worker's agent listed")
    await sign_in(page, shop_client, "front-desk")
    await click(page, "tab-playground")
    note = await wait_text(page, "playground-unloaded", "cannot be run")
    assert "worker desk.py" in note and "AGENTS" in note
    assert await prop(page, "playground-send", "disabled") is True
    await choose_agent(page, AGENT)
    await wait_text(page, "playground-agent", AGENT)
    assert await prop(page, "playground-unloaded", "hidden") is True
    assert await prop(page, "playground-send", "disabled") is False


async def test_a_call_waiting_for_a_decision_is_listed_and_decided_in_the_playground(
    page: Page, shop_client: Client, model_server: ModelServer
) -> None:
    """A turn parked on the OpenAI wire (a detached approval): the Sessions view lists the held
    call, "Decide in Playground" opens its session with the call held, an approval there
    finishes the turn, and the list is empty again."""
    await park_refund(shop_client, model_server, KEY, auth())
    await sign_in(page, shop_client, AGENT)
    await click(page, "tab-sessions")
    await wait_text(page, "status", "1 call(s) waiting for a decision")
    [waiting] = await rows(page, "#waiting-list tbody tr")
    assert waiting[1:5] == [
        f"customerId: {CUSTOMER}",
        KEY,
        "issue_refund",
        '{"order_id": "A-1", "amount": 500}',
    ]
    assert await violations(page, axe_source()) == [], "the calls waiting"

    await page.evaluate("document.querySelector('#waiting-list .open-decision').click()")
    await wait_text(page, "status", "issue_refund is waiting for your decision")
    assert KEY in await text(page, "playground-thread")
    model_server.answer_text("Refunded.")
    await click_text(page, ".decision button", "Approve")
    await wait_text(page, "status", "Reply complete.")
    log = await texts(page, "#playground-log > li")
    assert "refunded 500 on A-1" in log[-2] and "Refunded." in log[-1]

    await click(page, "tab-sessions")
    await wait_text(page, "status", "1 session(s).")
    assert await texts(page, "#waiting-list tbody tr") == ["Nothing is waiting for a decision."]


async def test_a_key_without_the_decisions_scope_is_told_so(
    page: Page, shop_client: Client
) -> None:
    await sign_in(page, shop_client, AGENT, key="no-decisions")
    await click(page, "tab-sessions")
    await wait_text(page, "status", "session(s)")
    assert await prop(page, "waiting-note", "hidden") is False
    assert await prop(page, "waiting-region", "hidden") is True
