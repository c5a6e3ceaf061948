"""What the AG-UI wire refuses, and how: before the stream a JSON error naming the field and
the rule, with its status (never a 200 carrying RUN_ERROR), nothing run, nothing recorded;
after the stream opened, RUN_ERROR. Every limit at the limit and one past it."""

from __future__ import annotations

from typing import Any

import asyncpg
import pytest
from ag_ui.core import RunErrorEvent

from testkit.model_server import ModelServer
from tests.agui.conftest import DESK_KEY, headers, parse_events, run_body, types
from tests.agui.outside import AGENT, OTHER
from tests.web_clients import Client

PATH = f"/agui/{AGENT}"


async def refused(app: Client, body: object, path: str = PATH, **extra: str) -> dict[str, Any]:
    async with app.post(path, json=body, headers=headers(**extra)) as answer:
        assert answer.content_type == "application/json", await answer.text()
        error: dict[str, Any] = (await answer.json())["error"]
        error["status"] = answer.status
        return error


async def sessions(pool: asyncpg.Pool) -> int:
    count: int = await pool.fetchval("select count(*) from stackbone_platform.chat_sessions")
    return count


@pytest.mark.parametrize(
    ("thread", "rule"),
    [
        ("", "threadId: must have at least 1 character"),
        ("k" * 201, "threadId: must have at most 200 characters"),
        ("caf\u00e9", "threadId: must be printable ASCII"),
        ("a\tb", "threadId: must be printable ASCII"),
    ],
)
async def test_thread_ids_break_the_session_keys_rules(
    agui_app: Client, model_server: ModelServer, pool: asyncpg.Pool, thread: str, rule: str
) -> None:
    error = await refused(agui_app, run_body(thread))
    assert (error["status"], error["code"], error["message"]) == (
        400,
        "memory_invalid_request",
        rule,
    )
    assert error["field"] == "threadId"
    assert model_server.requests == [] and await sessions(pool) == 0


async def test_a_thread_id_at_the_limit_is_a_session(
    agui_app: Client, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    model_server.answer_text("Hello.")
    async with agui_app.post(PATH, json=run_body("k" * 200), headers=headers()) as answer:
        assert answer.status == 200
        assert types(parse_events(await answer.text()))[-1] == "RUN_FINISHED"
    key = await pool.fetchval("select session_key from stackbone_platform.chat_sessions")
    assert key == "k" * 200


def _props(identities: object = None, customer: object = None) -> dict[str, Any]:
    props: dict[str, Any] = {}
    if identities is not None:
        props["identities"] = identities
    if customer is not None:
        props["customerId"] = customer
    return props


@pytest.mark.parametrize(
    ("props", "field", "rule"),
    [
        (_props({f"n{i}": "v" for i in range(33)}), "forwardedProps.identities", "too_many"),
        (_props({"n": "v" * 501}), "forwardedProps.identities", "value_too_long"),
        (_props({"n" * 101: "v"}), "forwardedProps.identities", "name_too_long"),
        (_props({"n": 7}), "forwardedProps.identities", "value_not_string"),
        (_props(["crm/1"]), "forwardedProps.identities", "identities_not_object"),
        (_props(customer="c" * 501), "forwardedProps.customerId", "value_too_long"),
        (_props(customer=""), "forwardedProps.customerId", "value_empty"),
        (_props({"customerId": "a"}, "b"), "forwardedProps.customerId", "customer_id_conflict"),
        (
            _props({f"n{i}": "v" for i in range(32)}, "c"),
            "forwardedProps.identities",
            "too_many",
        ),
    ],
)
async def test_identities_break_the_headers_rules(
    agui_app: Client, model_server: ModelServer, props: dict[str, Any], field: str, rule: str
) -> None:
    error = await refused(agui_app, run_body(forwardedProps=props))
    assert (error["status"], error["code"], error["field"]) == (400, "invalid_identities", field)
    assert rule in error["message"]
    assert model_server.requests == []


async def test_identities_at_their_limits_name_the_customer(
    agui_app: Client, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    identities = {f"n{i:02d}" + "x" * 97: "v" * 500 for i in range(31)}
    props = _props(identities | {"customerId": "c" * 500}, "c" * 500)
    model_server.answer_text("Hello.")
    async with agui_app.post(PATH, json=run_body(forwardedProps=props), headers=headers()) as a:
        assert a.status == 200, await a.text()
    user = await pool.fetchval("select user_id from stackbone_platform.chat_sessions")
    assert user == "c" * 500


async def test_forwarded_props_must_be_an_object(agui_app: Client) -> None:
    error = await refused(agui_app, run_body(forwardedProps="crm/1"))
    assert (error["status"], error["field"]) == (400, "forwardedProps")


@pytest.mark.parametrize(
    "header", ["x-stackbone-session", "x-stackbone-conversation", "x-stackbone-identities"]
)
async def test_the_other_wires_headers_are_refused_here(agui_app: Client, header: str) -> None:
    error = await refused(agui_app, run_body(), **{header: '{"customerId": "x"}'})
    assert (error["status"], error["field"]) == (400, header)
    assert "threadId" in error["message"]


async def test_a_body_that_is_not_run_agent_input_names_the_field(agui_app: Client) -> None:
    body = run_body()
    del body["messages"]
    error = await refused(agui_app, body)
    assert (error["status"], error["field"]) == (400, "messages")
    error = await refused(agui_app, run_body(threadId=7))
    assert (error["status"], error["field"]) == (400, "threadId")


async def test_non_text_content_parts_are_refused(agui_app: Client) -> None:
    image = {"type": "image", "source": {"type": "url", "value": "https://example.com/a.png"}}
    said = [{"id": "u1", "role": "user", "content": [{"type": "text", "text": "hi"}, image]}]
    error = await refused(agui_app, run_body(messages=said))
    assert (error["status"], error["field"]) == (400, "messages[0].content[1]")


async def test_new_messages_at_their_limits_and_past_them(
    agui_app: Client, model_server: ModelServer
) -> None:
    many = [{"id": f"u{i}", "role": "user", "content": "x"} for i in range(257)]
    error = await refused(agui_app, run_body(messages=many))
    assert (error["status"], error["field"]) == (400, "messages")
    long = [{"id": "u1", "role": "user", "content": "x" * 100_001}]
    error = await refused(agui_app, run_body(messages=long))
    assert (error["status"], error["field"]) == (400, "messages[0].content")
    model_server.answer_text("Read it all.")
    fine = [*many[:255], {"id": "u", "role": "user", "content": "x" * 100_000}]
    async with agui_app.post(PATH, json=run_body(messages=fine), headers=headers()) as answer:
        assert answer.status == 200, await answer.text()
    assert len(model_server.requests[-1]["messages"]) == 1 + 256


async def test_a_run_with_no_new_message_is_a_connect_run_not_a_refusal(agui_app: Client) -> None:
    """Its answer is the thread (`tests/agui/test_restore.py`), here an empty one."""
    said = [
        {"id": "u1", "role": "user", "content": "hi"},
        {"id": "a1", "role": "assistant", "content": "Hello."},
    ]
    for messages in (said, []):
        body = run_body(messages=messages)
        async with agui_app.post(PATH, json=body, headers=headers()) as answer:
            assert answer.status == 200
            events = parse_events(await answer.text())
        assert types(events) == ["RUN_STARTED", "MESSAGES_SNAPSHOT", "RUN_FINISHED"]


async def test_an_unknown_agent_or_one_the_key_does_not_reach_is_404(agui_app: Client) -> None:
    error = await refused(agui_app, run_body(), "/agui/nobody")
    assert error["status"] == 404
    async with agui_app.post(
        f"/agui/{OTHER}", json=run_body(), headers=headers(DESK_KEY)
    ) as answer:
        assert answer.status == 404


async def test_a_model_failure_before_any_event_is_json(
    agui_app: Client, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    model_server.fail(500)
    error = await refused(agui_app, run_body())
    assert (error["status"], error["code"]) == (502, "chat_model_failed")
    assert await pool.fetchval("select count(*) from stackbone_platform.chat_turns") == 0


async def test_a_failure_after_the_stream_opened_is_run_error_and_keeps_nothing(
    agui_app: Client, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    model_server.answer_text("one two three four", cut_after=3)
    async with agui_app.post(PATH, json=run_body(), headers=headers()) as answer:
        assert answer.status == 200
        events = parse_events(await answer.text())
    assert types(events)[0] == "RUN_STARTED"
    assert types(events)[-2:] == ["TEXT_MESSAGE_END", "RUN_ERROR"]
    error = events[-1]
    assert isinstance(error, RunErrorEvent) and error.code == "chat_model_failed"
    assert await pool.fetchval("select count(*) from stackbone_platform.chat_turns") == 0
    model_server.answer_text("Again.")  # the session is free at once
    async with agui_app.post(PATH, json=run_body(), headers=headers()) as answer:
        assert answer.status == 200
