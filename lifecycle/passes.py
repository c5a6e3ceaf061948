"""Turn mode (`consolidate="turn"`): one memory pass after each completed agent reply.

When the session commits an assistant message, a pass runs in the background (in parallel
with playback, never on the reply's path): one extraction over the facts held and what no saved
pass covered yet (normally the last heard exchange), applied with the revision compare-and-set
(`Memory.consolidate`). A pass that conflicts is dropped, not retried; what it read stays
uncovered, so the next pass reads it again against fresh facts. Passes never overlap
(`lifecycle.pass_schedule`). Non-final passes write no call record: the final pass at close
(`lifecycle.saving`) covers the rest and carries it. Every pass task is held and its failure
retrieved; logs carry the turn, status and codes, never text.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
from typing import Any

import structlog
from livekit.agents import AgentSession, ConversationItemAddedEvent, llm

from lifecycle.pass_schedule import PassState, on_closing, on_pass_done, on_reply, uncovered
from lifecycle.saving import CallScope
from memory.api import Memory
from memory.errors import Conflict
from transcript.models import Message
from transcript.recorder import TranscriptRecorder

log = structlog.get_logger(__name__)


class TurnPasses:
    """The turn passes of one call; `covered` heard messages are saved by them."""

    def __init__(
        self,
        memory: Memory,
        scope: CallScope,
        recorder: TranscriptRecorder,
        session: AgentSession[Any],
    ) -> None:
        self._memory = memory
        self._scope = scope
        self._recorder = recorder
        self._session = session
        self._state = PassState()
        self._task: asyncio.Task[None] | None = None
        self.covered = 0
        self.turn = 0  # completed agent replies so far
        self.statuses: list[str] = []  # per pass that ran: saved, dropped, failed, empty
        self._context = contextvars.copy_context()
        session.on("conversation_item_added", self._on_item)

    def _on_item(self, ev: ConversationItemAddedEvent) -> None:
        if isinstance(ev.item, llm.ChatMessage) and ev.item.role == "assistant":
            self.turn += 1
            self._state, start = on_reply(self._state)
            if start:
                self._start()

    def _start(self) -> None:
        self._task = asyncio.create_task(
            self._run(), name="memory-turn-pass", context=self._context
        )
        self._task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[None]) -> None:
        if not task.cancelled() and (error := task.exception()) is not None:
            log.error("memory.pass_crashed", error_type=type(error).__name__)
            self.statuses.append("failed")
        self._state, start = on_pass_done(self._state)
        if start:
            self._start()

    async def _run(self) -> None:
        heard = self._recorder.transcript
        part: list[Message] = uncovered(heard, self.covered)
        if not any(m["content"].strip() for m in part):
            self.statuses.append("empty")
            return
        scope, turn = self._scope, self.turn
        result = await self._memory.consolidate(
            part,
            scope.agent_id,
            scope.user_id,
            turn=turn,
            final=False,
            call={"run_id": scope.run_id},  # the event's call id; no call record is written
            instructions=scope.instructions,
            brief=scope.brief,
        )
        if result.error is None:
            self.covered = len(heard)
            status = "saved"
        else:
            status = "dropped" if result.error.code == Conflict.code else "failed"
        self.statuses.append(status)
        log.info("memory.pass_finished", turn=turn, status=status, code=_code(result.error))

    async def finish(self) -> None:
        """The call is ending: start no more passes and wait for the running one."""
        self._session.off("conversation_item_added", self._on_item)
        self._state = on_closing(self._state)
        task = self._task
        if task is not None and not task.done():
            with contextlib.suppress(Exception):
                await asyncio.shield(task)


def _code(error: Any) -> str | None:
    return None if error is None else str(error.code)
