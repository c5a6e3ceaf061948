"""Facts and summaries a model wrote with a NUL or a lone surrogate over HTTP (issue 31, defect 7):
the customer routes, search, the ops log and its live stream return them exactly (a lone
surrogate as its `\\u` escape, the only way JSON in UTF-8 carries it). The console reads these
same routes."""

from __future__ import annotations

import json
from typing import Any

from memory.api import Memory
from testkit.model_server import ModelServer
from tests.api.conftest import auth
from tests.api.test_ops_stream import STREAM, Streams, _make_streaming, next_events
from tests.memory.helpers import add_op
from tests.web_clients import Client
from worker.http.routes.ops_stream import frame

__all__ = ["_make_streaming"]  # the fixture, used by name

FACT = "Part\x00number AB-12 \ud83d kept"
SUMMARY = "Asked\x00about \udfff parts"
CUSTOMERS = "/api/memory/customers/support"


async def _saved(memory: Memory, server: ModelServer) -> None:
    server.answer([add_op(FACT)], SUMMARY)
    result = await memory.add("hi", "support", "+14155550100")
    assert result.error is None, result.error


async def _post(client: Client, path: str, body: dict[str, Any]) -> Any:
    response = await client.post(f"{CUSTOMERS}/{path}", json=body, headers=auth())
    assert response.status == 200, await response.text()
    raw = await response.read()
    raw.decode("utf-8")  # valid UTF-8: a lone surrogate travels as its escape
    return json.loads(raw)


async def test_customer_routes_and_search_return_the_text_exactly(
    client: Client, memory: Memory, model_server: ModelServer
) -> None:
    await _saved(memory, model_server)
    user = {"userId": "+14155550100"}
    recall = await _post(client, "recall", user)
    assert [f["content"] for f in recall["facts"]] == [FACT]
    assert [c["summary"] for c in recall["calls"]] == [SUMMARY]
    history = await _post(client, "history", user)
    assert [v["content"] for v in history["versions"]] == [FACT]
    found = await _post(client, "search", {"query": "number", "mode": "lexical"})
    assert [i["text"] for i in found["items"]] == [FACT]


async def test_the_ops_log_and_its_stream_carry_the_text_exactly(
    client: Client, make_streaming: Streams, memory: Memory, model_server: ModelServer
) -> None:
    await _saved(memory, model_server)
    response = await client.get("/api/memory/ops?agentId=support", headers=auth("memory-reader"))
    assert response.status == 200
    [logged] = (await response.json())["events"]
    assert logged["ops"][0]["text"] == FACT
    streaming, _ = await make_streaming()
    async with streaming.get(f"{STREAM}?agentId=support", headers=auth("memory-reader")) as stream:
        assert stream.status == 200
        [event] = await next_events(stream, 1)
    assert event == logged


def test_a_frame_holding_a_lone_surrogate_is_one_line_of_utf_8() -> None:
    event: Any = {"id": 7, "ops": [{"text": FACT}]}
    data = frame(event).decode("utf-8").split("\n")[2].removeprefix("data: ")
    assert json.loads(data) == event
