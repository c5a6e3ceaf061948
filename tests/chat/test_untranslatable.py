"""A model answer holding a NUL or a lone surrogate (issue 31, defect 7): Postgres text and jsonb
hold neither, yet the turn answers what the model said, keeps it in the session's thread and
shows it to operators exactly (escaped at the store boundary, `memory.store.stored_text`)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from memory.api import Memory
from memory.store import read_json, read_text, stored_json, stored_text
from testkit.model_server import ModelServer
from tests.chat.conftest import admin, chat_headers
from tests.memory.helpers import add_op
from tests.web_clients import Client

SAID = "Part\x00number \ud83d and \U0010ffff0 kept"  # NUL, a lone surrogate, the escape itself


async def _openai(client: Client, text: str) -> str:
    body = {"model": "both", "messages": [{"role": "user", "content": text}], "user": "crm/1"}
    response = await client.post(
        "/v1/chat/completions", json=body, headers=chat_headers(**{"x-stackbone-session": "nul"})
    )
    assert response.status == 200, await response.text()
    answer: str = json.loads(await response.text())["choices"][0]["message"]["content"]
    return answer


async def _anthropic(client: Client, text: str) -> str:
    body = {
        "model": "both",
        "max_tokens": 50,
        "messages": [{"role": "user", "content": text}],
        "metadata": {"user_id": "crm/1"},
    }
    response = await client.post(
        "/v1/messages", json=body, headers=chat_headers(**{"x-stackbone-session": "nul"})
    )
    assert response.status == 200, await response.text()
    answer: str = json.loads(await response.text())["content"][0]["text"]
    return answer


@pytest.mark.parametrize("say", [_openai, _anthropic], ids=["openai", "anthropic"])
async def test_a_session_turn_keeps_and_returns_what_the_model_said(
    client: Client, model_server: ModelServer, say: Any
) -> None:
    model_server.answer_text(SAID)
    assert await say(client, "Which part?") == SAID
    model_server.answer_text("Anything else?")
    assert await say(client, "Thanks") == "Anything else?"
    thread = [m for m in model_server.requests[-1]["messages"] if m["role"] != "system"]
    # the model is sent the thread as said, a lone surrogate as U+FFFD (no request carries one)
    assert [m["content"] for m in thread] == [
        "Which part?",
        SAID.replace("\ud83d", "\ufffd"),
        "Thanks",
    ]
    listed = await (await client.get("/api/chat/sessions/both", headers=admin())).json()
    (session,) = listed["sessions"]
    opened = await client.get(f"/api/chat/sessions/both/{session['sessionId']}", headers=admin())
    turns = json.loads(await opened.text())["turns"]
    assert [t["reply"] for t in turns] == [SAID, "Anything else?"]


def test_the_escape_round_trips_exactly() -> None:
    for text in ["", "plain", "\x00", "\ud800", "\udfff\x00", "\U0010ffff", "\U0010ffffe", SAID]:
        kept = stored_text(text)
        assert "\x00" not in kept
        kept.encode("utf-8")  # a lone surrogate would fail here
        assert read_text(kept) == text
    assert stored_text("unchanged text, ünïcode 😀") == "unchanged text, ünïcode 😀"
    value = {"k\x00": ["a\ud800", {"n": 1, "x": None, "t": True}]}
    assert read_json(stored_json(value)) == value


async def test_a_streamed_session_turn_relays_and_keeps_what_the_model_said(
    client: Client, model_server: ModelServer
) -> None:
    model_server.answer_text(SAID)
    body = {
        "model": "both",
        "messages": [{"role": "user", "content": "Which part?"}],
        "user": "crm/1",
        "stream": True,
    }
    response = await client.post(
        "/v1/chat/completions", json=body, headers=chat_headers(**{"x-stackbone-session": "s"})
    )
    assert response.status == 200
    events = [
        line[6:] for line in (await response.text()).splitlines() if line.startswith("data: ")
    ]
    assert events[-1] == "[DONE]"
    deltas = [json.loads(e)["choices"][0]["delta"].get("content", "") for e in events[:-1]]
    assert "".join(deltas) == SAID
    listed = await (await client.get("/api/chat/sessions/both", headers=admin())).json()
    opened = await client.get(
        f"/api/chat/sessions/both/{listed['sessions'][0]['sessionId']}", headers=admin()
    )
    assert [t["reply"] for t in json.loads(await opened.text())["turns"]] == [SAID]


async def test_memory_read_gives_the_model_a_fact_and_summary_as_they_were_said(
    client: Client, model_server: ModelServer, memory: Memory
) -> None:
    """The tool's result carries a lone surrogate as its JSON escape: the request stays UTF-8."""
    model_server.answer([add_op(SAID)], SAID)
    assert (await memory.add("call", "reader", "crm/1")).error is None
    model_server.call_tool("memory_read")
    model_server.answer_text("Noted.")
    body = {"model": "reader", "messages": [{"role": "user", "content": "Hi"}], "user": "crm/1"}
    response = await client.post("/v1/chat/completions", json=body, headers=chat_headers())
    assert response.status == 200, await response.text()
    [result] = [m["content"] for m in model_server.requests[-1]["messages"] if m["role"] == "tool"]
    read = json.loads(result)
    assert (read["facts"], [c["summary"] for c in read["recentCalls"]]) == ([SAID], [SAID])
