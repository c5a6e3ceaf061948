"""The OpenAI wire's `model` is an agent id: it takes as many characters as an agent id may have
(`MAX_AGENT_ID_CHARS`, 200), and one more is refused (was: 100)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from memory.contract import limits
from worker.catalog import valid_agent_id
from worker.http.wires.openai_body import ChatBody

MESSAGES = [{"role": "user", "content": "Hi"}]


def test_a_model_as_long_as_the_longest_agent_id_is_read() -> None:
    longest = "a" * limits.MAX_AGENT_ID_CHARS
    assert len(longest) == 200 and valid_agent_id(longest)
    assert ChatBody.model_validate({"model": longest, "messages": MESSAGES}).model == longest


def test_a_model_one_character_longer_is_refused() -> None:
    with pytest.raises(ValidationError) as refused:
        ChatBody.model_validate({"model": "a" * 201, "messages": MESSAGES})
    assert [e["loc"] for e in refused.value.errors()] == [("model",)]
