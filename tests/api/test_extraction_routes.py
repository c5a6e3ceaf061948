"""Shared extraction guidance and model selection over HTTP, checked against what the model sees."""

from __future__ import annotations

from typing import Any

import pytest

from memory.api import Memory
from memory.extraction._prompts import prompt
from testkit.model_server import ModelServer
from tests.api.conftest import auth
from tests.web_clients import Client

BASE = "/api/memory/extraction"
DRAFT_TEXT = "Also keep the caller's preferred language."


async def call(client: Client, method: str, path: str, body: object = None) -> tuple[int, Any]:
    response = await client.request(method, BASE + path, json=body, headers=auth())
    return response.status, await response.json()


async def extract(memory: Memory, model_server: ModelServer) -> dict[str, Any]:
    """Run one add and return the request the model received."""
    model_server.answer([])
    result = await memory.add("Hello there.", "support", "u1")
    assert result.error is None, result.error
    return model_server.requests[-1]


def system_text(request: dict[str, Any]) -> str:
    return "\n".join(m["content"] for m in request["messages"] if m["role"] == "system")


class TestGuidance:
    async def test_starts_on_built_in(self, client: Client) -> None:
        """With nothing stored the built-in guidance is in use and shown for the editor."""
        status, body = await call(client, "GET", "")
        assert status == 200
        assert body["guidance"]["usesBuiltIn"] is True
        assert body["guidance"]["builtIn"] == prompt("guidance")
        assert body["model"] is None and body["reasoningEffort"] is None

    async def test_a_draft_never_runs(
        self, client: Client, memory: Memory, model_server: ModelServer
    ) -> None:
        """A saved draft is stored but the extractor still gets the built-in guidance."""
        status, body = await call(client, "PUT", "/guidance/draft", {"text": DRAFT_TEXT})
        assert status == 200
        assert body["guidance"]["draft"] == DRAFT_TEXT
        assert body["guidance"]["published"] is None
        seen = system_text(await extract(memory, model_server))
        assert DRAFT_TEXT not in seen
        assert prompt("guidance") in seen

    async def test_published_guidance_runs_and_reset_restores_built_in(
        self, client: Client, memory: Memory, model_server: ModelServer
    ) -> None:
        """Publishing makes the draft reach the model; reset takes it away again."""
        await call(client, "PUT", "/guidance/draft", {"text": DRAFT_TEXT})
        status, body = await call(client, "POST", "/guidance/publish")
        assert status == 200
        assert body["guidance"]["published"] == DRAFT_TEXT
        assert body["guidance"]["publishedAt"]
        published = system_text(await extract(memory, model_server))
        assert DRAFT_TEXT in published
        assert prompt("protocol") in published  # the compiled protocol still comes first
        status, body = await call(client, "DELETE", "/guidance")
        assert status == 200
        assert body["guidance"]["draft"] is None and body["guidance"]["usesBuiltIn"] is True
        assert DRAFT_TEXT not in system_text(await extract(memory, model_server))

    @pytest.mark.parametrize("blank", ["", "   \n\t "])
    async def test_blank_published_text_means_built_in(
        self, client: Client, memory: Memory, model_server: ModelServer, blank: str
    ) -> None:
        """Publishing a blank draft stores nothing, so the built-in guidance runs."""
        await call(client, "PUT", "/guidance/draft", {"text": DRAFT_TEXT})
        await call(client, "POST", "/guidance/publish")
        await call(client, "PUT", "/guidance/draft", {"text": blank})
        status, body = await call(client, "POST", "/guidance/publish")
        assert status == 200
        assert body["guidance"]["published"] is None
        assert prompt("guidance") in system_text(await extract(memory, model_server))

    @pytest.mark.parametrize(
        ("body", "field"),
        [
            ({}, "text"),
            ({"text": None}, "text"),
            ({"text": "x" * 20_001}, "text"),
            ({"text": "ok", "publish": True}, "publish"),
        ],
    )
    async def test_invalid_drafts_are_400(self, client: Client, body: Any, field: str) -> None:
        status, answer = await call(client, "PUT", "/guidance/draft", body)
        assert status == 400
        assert answer["error"]["field"] == field


class TestModelSelection:
    async def test_stored_selection_is_what_the_extractor_uses(
        self, client: Client, memory: Memory, model_server: ModelServer
    ) -> None:
        """The stored model and effort win over the client and environment fallbacks."""
        body = {"model": "openai/gpt-test-mini", "reasoningEffort": "low"}
        status, saved = await call(client, "PUT", "/model", body)
        assert status == 200
        assert (saved["model"], saved["reasoningEffort"]) == ("openai/gpt-test-mini", "low")
        request = await extract(memory, model_server)
        assert request["model"] == "gpt-test-mini"
        assert request["reasoning_effort"] == "low"

    async def test_partial_update_and_clearing(self, client: Client) -> None:
        """Omitted fields stay; null clears a stored value."""
        await call(client, "PUT", "/model", {"model": "openai/a", "reasoningEffort": "medium"})
        _, body = await call(client, "PUT", "/model", {"reasoningEffort": None})
        assert (body["model"], body["reasoningEffort"]) == ("openai/a", None)

    @pytest.mark.parametrize(
        ("body", "field"),
        [
            ({"reasoningEffort": "extreme"}, "reasoningEffort"),
            ({"reasoningEffort": 3}, "reasoningEffort"),
            ({"model": ""}, "model"),
            ({"provider": "x"}, "provider"),
        ],
    )
    async def test_invalid_selection_is_400(self, client: Client, body: Any, field: str) -> None:
        status, answer = await call(client, "PUT", "/model", body)
        assert status == 400
        assert answer["error"]["field"] == field
        _, now = await call(client, "GET", "")
        assert now["model"] is None and now["reasoningEffort"] is None
