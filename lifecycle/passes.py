"""Turn mode (`consolidate="turn"`): one memory pass after each completed agent reply.

When the session commits an assistant message, a pass runs in the background (in parallel
with playback, never on the reply's path): one extraction over the facts held and what no saved
pass covered yet (normally the last heard exchange), applied with the revision compare-and-set
(`Memory.consolidate`). A pass that conflicts is dropped, not retried; what it read stays
uncovered, so the next pass reads it again against fresh facts. Passes never overlap
(`lifecycle.pass_schedule`). A saved pass that changed facts then refreshes the agent's memory
block (`lifecycle.memory_block`) on its own task, unless the call is already closing (the save
started or the session closed). Non-final passes write no call record: the final pass at close
(`lifecycle.saving`) covers the rest and carries it. At close the running pass gets a bounded
wait (`pass_schedule.running_pass_wait`); past it, it is cancelled (what it read is still
uncovered, so the final pass reads it). Every pass task is held and its failure retrieved;
logs carry the turn, status and codes, never text. A pass starts its work once the agent is
not generating a reply (`lifecycle.reply_first`), so its CPU does not delay that reply.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
from typing import Any

import structlog
from livekit.agents import AgentSession, CloseEvent, ConversationItemAddedEvent, llm

from infra.deadline import ABANDONED
from lifecycle.memory_block import MemoryBlock
from lifecycle.pass_schedule import PassState, on_closing, on_pass_done, on_reply, uncovered
from lifecycle.reply_first import reply_first
from lifecycle.saving import VOICE, CallScope
from memory.api import Memory
from memory.contract import Conflict
from transcript.models import Message
from transcript.recorder import TranscriptRecorder
from transcript.sendable import sendable

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
        self.statuses: list[str] = []  # per pass: saved, dropped, failed, empty, abandoned
        self.block: MemoryBlock | None = None  # the agent's memory block, when it was recalled
        self._context = contextvars.copy_context()
        session.on("conversation_item_added", self._on_item)
        session.on("close", self._on_close)

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
        await reply_first(self._session)  # a reply being generated goes first
        heard = self._recorder.transcript
        part: list[Message] = uncovered(heard, self.covered)
        if not any(m["content"].strip() for m in part):
            self.statuses.append("empty")
            return
        scope, turn = self._scope, self.turn
        result = await self._memory.consolidate(
            sendable(part),
            scope.agent_id,
            scope.user_id,
            turn=turn,
            final=False,
            # the event's call id and the conversation's start; no call record is written
            call={
                "run_id": scope.run_id,
                "started_at": scope.started_at,
                "channel": VOICE,
                "job_id": scope.run_id,
                "first_turn": self.covered,  # the part's place in the call
            },
            instructions=scope.instructions,
            brief=scope.brief,
            covers=len(heard),  # the call's journal mark, moved by the same write
            time_zone=scope.time_zone,
        )
        if result.error is None:
            self.covered = len(heard)
            status = "saved"
        else:
            status = "dropped" if result.error.code == Conflict.code else "failed"
        self.statuses.append(status)
        log.info("memory.pass_finished", turn=turn, status=status, code=_code(result.error))
        if result.data is not None and self.block is not None and not self._state.closing:
            await self.block.refresh(result.data.applied)

    def _on_close(self, _: CloseEvent) -> None:
        self.close()

    def close(self) -> None:
        """The call is closing: no pass starts and no block is refreshed from now on."""
        self._session.off("conversation_item_added", self._on_item)
        self._session.off("close", self._on_close)
        self._state = on_closing(self._state)

    async def finish(self, grace: float) -> None:
        """The call is ending: close, and wait for the running pass at most `grace` seconds;
        past it the pass is cancelled (held until it ends) and the final pass covers its part."""
        self.close()
        task = self._task
        if task is None or task.done():
            return
        with contextlib.suppress(Exception):
            await asyncio.wait({task}, timeout=grace)
        if not task.done():
            self.statuses.append("abandoned")
            log.warning("memory.pass_abandoned", turn=self.turn)
            ABANDONED.hold(task, "turn_pass")


def _code(error: Any) -> str | None:
    return None if error is None else str(error.code)
