"""A run's AG-UI events, written as the turn happens (`ag-ui-protocol`'s models and its SSE
`EventEncoder`).

The stream opens (`RUN_STARTED`) with the turn's first event: a text delta or a tool call. So a
run that fails before either (a busy session, a pending decision, a model that refuses) answers
with the JSON error and its status, like the other wires; a failure after it is `RUN_ERROR`.
Text travels as `TEXT_MESSAGE_START`, a `TEXT_MESSAGE_CONTENT` per delta as the model writes it,
`TEXT_MESSAGE_END`; each tool call as `TOOL_CALL_START` / `ARGS` / `END` once the model's call is
complete, and a server tool's result as `TOOL_CALL_RESULT` with `metadata.durationMs`. The run
ends with `RUN_FINISHED` and the turn's tokens (`usage`).
"""

from __future__ import annotations

import uuid
from typing import Any, TypeAlias

from ag_ui.core import (
    PROTOCOL_VERSION,
    BaseEvent,
    EventType,
    RunErrorEvent,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunFinishedSuccessOutcome,
    RunStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    TokenUsage,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)
from ag_ui.encoder import EventEncoder
from aiohttp import web
from pydantic_core import PydanticSerializationError

from chat import TurnResult
from worker.http.server.context import wire_json
from worker.http.wires.agui_resume import interrupted

ENCODER = EventEncoder()
Outcome: TypeAlias = RunFinishedSuccessOutcome | RunFinishedInterruptOutcome


def _id() -> str:
    return uuid.uuid4().hex


def usage(result: TurnResult) -> list[TokenUsage]:
    total = result.prompt_tokens + result.completion_tokens
    counts = TokenUsage(
        input_tokens=result.prompt_tokens,
        output_tokens=result.completion_tokens,
        total_tokens=total,
    )
    return [counts]


def outcome_of(result: TurnResult) -> Outcome:
    """How the run ended: on a held call (an interrupt), on the client's calls (success with
    `pendingToolCallIds`: no result is sent for them), or answered (success)."""
    if result.held is not None:
        return interrupted(result.held)
    if result.client_calls:
        return RunFinishedSuccessOutcome(pending_tool_call_ids=[c.id for c in result.client_calls])
    return RunFinishedSuccessOutcome()


class RunStream:
    """The run's response: the turn's relay (text deltas) and its tool observer."""

    def __init__(self, request: web.Request, thread_id: str, run_id: str) -> None:
        self.request, self.thread_id, self.run_id = request, thread_id, run_id
        self.response = web.StreamResponse(
            headers={"Content-Type": ENCODER.get_content_type(), "Cache-Control": "no-cache"}
        )
        self._text: str | None = None  # the open text message, if any
        self._parent: str | None = None  # the step's text message, the parent of its calls

    @property
    def started(self) -> bool:
        return self.response.prepared

    async def _send(self, *events: BaseEvent) -> None:
        if not self.response.prepared:
            await self.response.prepare(self.request)
            opening = RunStartedEvent(
                thread_id=self.thread_id, run_id=self.run_id, protocol_version=PROTOCOL_VERSION
            )
            events = (opening, *events)
        await self.response.write("".join(_frame(e) for e in events).encode())

    def _close_text(self) -> list[BaseEvent]:
        if self._text is None:
            return []
        closing = TextMessageEndEvent(message_id=self._text)
        self._text = None
        return [closing]

    async def relay(self, text: str) -> None:
        events: list[BaseEvent] = []
        if self._text is None:
            self._text = self._parent = _id()
            events.append(TextMessageStartEvent(message_id=self._text, role="assistant"))
        events.append(TextMessageContentEvent(message_id=self._text, delta=text))
        await self._send(*events)

    async def tool_call(self, call_id: str, name: str, arguments: str) -> None:
        events = self._close_text()
        if self._parent is None:  # a step's calls are told together: one assistant message
            self._parent = _id()
        start = ToolCallStartEvent(
            tool_call_id=call_id, tool_call_name=name, parent_message_id=self._parent
        )
        events += [start, ToolCallArgsEvent(tool_call_id=call_id, delta=arguments)]
        await self._send(*events, ToolCallEndEvent(tool_call_id=call_id))

    async def tool_result(
        self, call_id: str, content: str, duration_ms: float, error: str | None
    ) -> None:
        self._parent = None  # the next text is the next step's
        metadata: dict[str, Any] = {"durationMs": round(duration_ms, 1)}
        if error is not None:
            metadata["error"] = error
        result = ToolCallResultEvent(
            message_id=_id(), tool_call_id=call_id, content=content, role="tool", metadata=metadata
        )
        await self._send(result)

    async def finish(self, result: TurnResult) -> None:
        finished = RunFinishedEvent(
            thread_id=self.thread_id,
            run_id=self.run_id,
            outcome=outcome_of(result),
            usage=usage(result),
        )
        await self._send(*self._close_text(), finished)
        await self.response.write_eof()

    async def restored(self, messages: list[dict[str, Any]], outcome: Outcome) -> None:
        """A connect run: the thread as one `MESSAGES_SNAPSHOT` (its messages as AG-UI's JSON,
        `agui_restore`), then how its last run ended."""
        fields = {"type": EventType.MESSAGES_SNAPSHOT.value, "messages": messages}
        snapshot = f"data: {wire_json(fields, separators=(',', ':'))}\n\n"
        finished = RunFinishedEvent(thread_id=self.thread_id, run_id=self.run_id, outcome=outcome)
        if not self.response.prepared:
            await self._send()  # RUN_STARTED
        await self.response.write(f"{snapshot}{_frame(finished)}".encode())
        await self.response.write_eof()

    async def fail(self, code: str, message: str) -> None:
        await self._send(*self._close_text(), RunErrorEvent(message=message, code=code))
        await self.response.write_eof()


def _frame(event: BaseEvent) -> str:
    """One event as the package encodes it; text a model wrote holding a lone surrogate (which
    the package's JSON cannot carry) as the same frame with the character's `\\u` escape."""
    try:
        return ENCODER.encode(event)
    except PydanticSerializationError:
        fields = event.model_dump(mode="json", by_alias=True, exclude_none=True)
        return f"data: {wire_json(fields, separators=(',', ':'))}\n\n"
