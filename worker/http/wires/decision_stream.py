"""A decision's continued turn streamed as server-sent events (`"stream": true` on
`POST /api/chat/decisions/{decisionId}`): `tool_result` for each call the continuation runs
(the decided one first, with its duration), `tool_call` for each call the model writes,
`delta` for each text delta as the model writes it, and `done` with the same body the plain
answer has; a failure after the stream opened is an `error` event with the error body."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from aiohttp import web

from chat import Decision, DecisionRow, TurnResult
from worker.http.server.answers import Continued
from worker.http.server.context import wire_json
from worker.http.wires.stream import TurnStream, stream_run
from worker.http.wires.turns import continue_turn


def _event(name: str, data: Any) -> bytes:
    return f"event: {name}\ndata: {wire_json(data)}\n\n".encode()


@dataclass(frozen=True, slots=True)
class _Events:
    row: DecisionRow
    decision: Decision

    def opening(self) -> bytes:
        return b""

    def delta(self, text: str) -> bytes:
        return _event("delta", {"text": text})

    def closing(self, result: TurnResult) -> bytes:
        return _event("done", Continued.of(self.row, self.decision, result).wire())

    def failure(self, body: dict[str, Any]) -> bytes:
        return _event("error", body)


@dataclass(frozen=True, slots=True)
class _Calls:
    """The continuation's tool calls and results, as events in the stream."""

    stream: TurnStream

    async def tool_call(self, call_id: str, name: str, arguments: str) -> None:
        await self.stream.send(
            _event("tool_call", {"id": call_id, "name": name, "arguments": arguments})
        )

    async def tool_result(
        self, call_id: str, content: str, duration_ms: float, error: str | None
    ) -> None:
        body = {"id": call_id, "result": content, "error": error, "durationMs": duration_ms}
        await self.stream.send(_event("tool_result", body))


async def stream_continuation(
    request: web.Request, row: DecisionRow, decision: Decision
) -> web.StreamResponse:
    def run(stream: TurnStream) -> Any:
        return continue_turn(request, row.pending.id, decision, stream.relay, _Calls(stream))

    return await stream_run(request, _Events(row, decision), run)
