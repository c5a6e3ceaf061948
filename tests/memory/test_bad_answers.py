"""Provider answers the client cannot use, and bad text in model answers: always an envelope.

Each case is a real HTTP answer from the local model server; the provider client reads it.
Unusable responses are `memory_model_failed` after exactly one request; answers that parse
but break a rule (duplicate keys, a key holding a lone surrogate or NUL) are
`memory_invalid_model_output`. Nothing is written in either case. (A fact or summary holding a
NUL or a lone surrogate is what the model said, and is kept: `test_untranslatable_facts`.)
"""

from __future__ import annotations

import json
from typing import Any

import asyncpg
import pytest

from memory.api import Memory
from memory.contract._errors import InvalidModelOutput, ModelFailed
from memory.extraction._provider import read_completion
from testkit.model_server import ModelServer, Reply
from tests.memory.helpers import add_op, stored

GOOD_ANSWER = json.dumps({"operations": [], "summary": "A call."})


def _envelope(content: Any) -> str:
    return json.dumps(
        {
            "choices": [
                {"message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
            ]
        }
    )


UNUSABLE: list[tuple[str, Reply]] = [
    ("non-JSON 200", Reply(raw_body="<html>busy</html>")),
    ("text/plain body", Reply(raw_body="hello", content_type="text/plain")),
    (
        "JSON envelope as text/plain",
        Reply(raw_body=_envelope(GOOD_ANSWER), content_type="text/plain"),
    ),
    ("JSON array", Reply(raw_body="[1, 2, 3]")),
    ("JSON string", Reply(raw_body='"ok"')),
    ("JSON null", Reply(raw_body="null")),
    ("choices not a list", Reply(raw_body='{"choices": 5}')),
    ("choice not an object", Reply(raw_body='{"choices": [7]}')),
    ("no message", Reply(raw_body='{"choices": [{"finish_reason": "stop"}]}')),
    ("content a number", Reply(raw_body=_envelope(5))),
    ("content an object", Reply(raw_body=_envelope({"operations": []}))),
    (
        "usage of the wrong type",
        Reply(
            raw_body=json.dumps(
                {
                    "choices": [{"message": {"content": GOOD_ANSWER}}],
                    "usage": {"prompt_tokens": "x"},
                }
            )
        ),
    ),
    ("invalid UTF-8", Reply(raw_body='{"choices": "\udcff"}')),
    ("empty body", Reply(raw_body="")),
    ("truncated body", Reply(raw_body=_envelope(GOOD_ANSWER)[:30])),
    ("2,000-deep nesting", Reply(raw_body="[" * 2000 + "]" * 2000)),
    ("connection dropped", Reply(drop=True)),
]


@pytest.mark.parametrize("reply", [r for _, r in UNUSABLE], ids=[n for n, _ in UNUSABLE])
async def test_unusable_provider_response_is_model_failed_after_one_request(
    memory: Memory, model_server: ModelServer, pool: asyncpg.Pool, reply: Reply
) -> None:
    model_server.answer([add_op("Has a dog.")], "Seeded.")
    assert (await memory.add("seed", "support", "u1")).error is None
    before = await stored(pool, "support", "u1")
    model_server.replies.append(reply)
    result = await memory.add("hi", "support", "u1")
    assert result.data is None
    assert result.error is not None and result.error.code == "memory_model_failed", result.error
    assert len(model_server.requests) == 2  # the seed and exactly one for this add
    assert await stored(pool, "support", "u1") == before


BAD_TEXT: list[tuple[str, str]] = [
    ("duplicate key at the top", '{"operations": [], "summary": "a", "summary": "b"}'),
    (
        "duplicate key in an operation",
        '{"operations": [{"op": "add", "handle": null, "content": "x", "content": "y"}],'
        ' "summary": "a"}',
    ),
    ("NUL in a key", '{"operations": [], "summary": "a", "k\\u0000": 1}'),
    ("lone surrogate in a key", '{"operations": [], "summary": "a", "\\ud800": 1}'),
    ("NaN", '{"operations": [], "summary": "a", "x": NaN}'),
    ("deep nesting", '{"operations": [], "summary": "a", "x": ' + "[" * 40 + "]" * 40 + "}"),
]


@pytest.mark.parametrize("answer", [a for _, a in BAD_TEXT], ids=[n for n, _ in BAD_TEXT])
async def test_bad_text_in_the_answer_is_invalid_model_output(
    memory: Memory, model_server: ModelServer, pool: asyncpg.Pool, answer: str
) -> None:
    model_server.answer([add_op("Has a dog.")], "Seeded.")
    assert (await memory.add("seed", "support", "u1")).error is None
    before = await stored(pool, "support", "u1")
    model_server.answer_text(answer)
    result = await memory.add("hi", "support", "u1")
    assert result.error is not None
    assert result.error.code == "memory_invalid_model_output", result.error
    assert "\ud800" not in result.error.message and "content" not in result.error.message[:10]
    assert await stored(pool, "support", "u1") == before


async def test_a_surrogate_pair_is_one_character_and_is_kept(
    memory: Memory, model_server: ModelServer
) -> None:
    """Escaped as a proper pair, an emoji is one code point, not a lone surrogate."""
    model_server.answer_text(
        '{"operations": [{"op": "add", "handle": null, "content": "Likes \\ud83d\\ude00"}],'
        ' "summary": "s"}'
    )
    result = await memory.add("hi", "support", "u1")
    assert result.data is not None, result.error
    assert [f.content for f in result.data.facts] == ["Likes \U0001f600"]


class TestReadCompletion:
    """The pure reader of a provider body, as a table."""

    def test_a_good_body(self) -> None:
        body = json.dumps(
            {
                "choices": [{"message": {"content": "x"}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 3, "completion_tokens": 4},
                "extra": {"ignored": True},
            }
        ).encode()
        completion = read_completion("application/json; charset=utf-8", body)
        assert (completion.text, completion.prompt_tokens, completion.completion_tokens) == (
            "x",
            3,
            4,
        )

    @pytest.mark.parametrize(
        ("content_type", "body"),
        [
            (None, b"{}"),
            ("text/plain", _envelope("x").encode()),
            ("application/json", b"\xff"),
            ("application/json", b"[]"),
            ("application/json", b'{"choices": [{"message": {"content": true}}]}'),
        ],
    )
    def test_unusable_bodies(self, content_type: str | None, body: bytes) -> None:
        with pytest.raises(ModelFailed):
            read_completion(content_type, body)

    @pytest.mark.parametrize(
        "body",
        [
            b'{"choices": []}',
            b'{"choices": [{"message": {"content": "x"}, "finish_reason": "length"}]}',
        ],
    )
    def test_empty_or_truncated_answers_are_invalid_output(self, body: bytes) -> None:
        with pytest.raises(InvalidModelOutput):
            read_completion("application/json", body)
