"""Hostile bodies on the AG-UI wire: bytes that are not UTF-8, nesting past the JSON reader's
depth and a lone surrogate are each a 400 naming the rule before any stream (nothing claimed,
nothing recorded), or, for a surrogate a person may well paste, a turn that completes and
keeps what was said; a model answer holding a NUL or a lone surrogate streams and is kept."""

from __future__ import annotations

import json

import asyncpg

from testkit.model_server import ModelServer
from tests.agui.conftest import headers, parse_events, run_body, types
from tests.agui.outside import AGENT
from tests.web_clients import Client

PATH = f"/agui/{AGENT}"


async def raw(app: Client, body: bytes) -> tuple[int, str]:
    async with app.post(PATH, data=body, headers=headers()) as answer:
        return answer.status, await answer.text()


async def test_bytes_that_are_not_utf8_are_a_400_naming_the_body(
    agui_app: Client, pool: asyncpg.Pool
) -> None:
    body = json.dumps(run_body()).encode().replace(b"Where", b"Wh\xffere")
    status, text = await raw(agui_app, body)
    assert status == 400 and json.loads(text)["error"]["field"] == "body", text
    assert await pool.fetchval("select count(*) from stackbone_platform.chat_sessions") == 0


async def test_deep_nesting_is_a_400_before_any_stream(
    agui_app: Client, pool: asyncpg.Pool
) -> None:
    deep = "[" * 5000 + "]" * 5000
    body = json.dumps(run_body()).replace('"state": {}', f'"state": {deep}').encode()
    status, text = await raw(agui_app, body)
    assert status == 400, text
    assert "nest" in json.loads(text)["error"]["message"]
    assert await pool.fetchval("select count(*) from stackbone_platform.chat_sessions") == 0


async def test_a_nul_or_lone_surrogate_the_client_wrote_is_a_400_naming_the_message(
    agui_app: Client, pool: asyncpg.Pool
) -> None:
    for said in ("Part \x00 number", "Part \ud83d number"):
        messages = [{"id": "u1", "role": "user", "content": said}]
        status, text = await raw(agui_app, json.dumps(run_body(messages=messages)).encode())
        assert status == 400, text
        assert json.loads(text)["error"]["field"] == "messages[0].content"
    assert await pool.fetchval("select count(*) from stackbone_platform.chat_sessions") == 0


async def test_a_model_answer_with_a_nul_and_a_lone_surrogate_streams_and_comes_back(
    agui_app: Client, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    """What the model wrote reaches the client as written, and the client's next run, which
    resends it in its history (as `HttpAgent` does), is taken: the history's assistant
    messages are the server's own words, not client input."""
    answer = "Reply \ud83d with \x00 kept"
    model_server.answer_text(answer)
    status, text = await raw(agui_app, json.dumps(run_body()).encode())
    assert status == 200, text
    events = parse_events(text)
    assert types(events)[-1] == "RUN_FINISHED", types(events)
    streamed = "".join(getattr(e, "delta", "") for e in events if e.type == "TEXT_MESSAGE_CONTENT")
    assert streamed == answer
    model_server.answer_text("Anything else?")
    history = [
        {"id": "u1", "role": "user", "content": "Where is order A-1?"},
        {"id": "a1", "role": "assistant", "content": answer},
        {"id": "u2", "role": "user", "content": "Thanks"},
    ]
    body = json.dumps(run_body(messages=history, runId="run-2")).encode()
    status, text = await raw(agui_app, body)
    assert status == 200, text
    assert types(parse_events(text))[-1] == "RUN_FINISHED"
    assert await pool.fetchval("select count(*) from stackbone_platform.chat_turns") == 2
