"""Both chat wires' `model` is an agent id: it takes as many characters as an agent id may have
(`MAX_AGENT_ID_CHARS`, 200), and one more is refused (was: 100)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from memory.contract import limits
from worker.catalog import valid_agent_id
from worker.http.wires.anthropic_body import MessagesBody
from worker.http.wires.openai_body import ChatBody

MESSAGES = [{"role": "user", "content": "Hi"}]
BODIES = [(ChatBody, {}), (MessagesBody, {"max_tokens": 10})]


@pytest.mark.parametrize(("body", "extra"), BODIES)
def test_a_model_as_long_as_the_longest_agent_id_is_read(body: Any, extra: dict[str, Any]) -> None:
    longest = "a" * limits.MAX_AGENT_ID_CHARS
    assert len(longest) == 200 and valid_agent_id(longest)
    assert body.model_validate({"model": longest, "messages": MESSAGES, **extra}).model == longest


@pytest.mark.parametrize(("body", "extra"), BODIES)
def test_a_model_one_character_longer_is_refused(body: Any, extra: dict[str, Any]) -> None:
    with pytest.raises(ValidationError) as refused:
        body.model_validate({"model": "a" * 201, "messages": MESSAGES, **extra})
    assert [e["loc"] for e in refused.value.errors()] == [("model",)]
