"""Listens to one AgentSession and keeps what the caller heard and said.

The entrypoint calls `attach(session)` once, before or after `session.start()`. The recorder only
turns public events into the plain values of `transcript.models`; the rule deciding what counts
lives in `transcript.assembly`. Every callback is synchronous, as livekit's event emitter
requires, and does no I/O besides one log event per withheld reply.

Facts come from:
- `conversation_item_added`: committed messages, in order (handoffs, config updates and other
  non-message items are skipped; tool calls never arrive here);
- `speech_created`: the source of each speech (`say` or `generate_reply`);
- a `transcript.meter.PlayoutMeter` placed at the head of the session's audio output: one
  measured `Playback` per audio segment, attributed to `session.current_speech`, which is the
  speech playing when the report arrives and still the producing speech when its message is
  committed (observed in every configuration of the tests, including a close mid-reply).

The meter is placed when the recorder is attached and again whenever a speech is created while
the head of the chain is not this recorder's meter: RoomIO installs its outputs during
`start()`, after the entrypoint attached, and a speech's task reads the output only after its
`speech_created` event. Placing it swaps `session.output.audio` for a pass-through over the same
chain, which works with any Agent (nothing is subclassed).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import structlog
from livekit.agents import (
    AgentSession,
    ConversationItemAddedEvent,
    SpeechCreatedEvent,
    llm,
)

from transcript.assembly import assemble, heard_anything, judge
from transcript.meter import PlayoutMeter
from transcript.models import Message, Playback, Speech, SpeechSource, Turn

log = structlog.get_logger(__name__)

_TTS_FIRST_BYTE_METRIC = "tts_node_ttfb"


class TranscriptRecorder:
    """What one call's session committed, with the playback facts to judge interrupted replies."""

    def __init__(self, session: AgentSession[Any]) -> None:
        self._session = session
        self._turns: list[Turn] = []
        self._sources: dict[str, SpeechSource] = {}
        self._playbacks: dict[str, list[Playback]] = {}
        self._meter: PlayoutMeter | None = None
        self._heard = 0
        self._listeners: list[Callable[[int, Message], None]] = []
        session.on("conversation_item_added", self._on_item_added)
        session.on("speech_created", self._on_speech_created)
        self._place_meter()

    @property
    def turns(self) -> tuple[Turn, ...]:
        """Every committed user and assistant message seen so far, as plain values."""
        return tuple(self._turns)

    @property
    def transcript(self) -> list[Message]:
        """The transcript to save: what the caller said and verifiably heard."""
        return assemble(self._turns)

    @property
    def heard(self) -> bool:
        """Whether the transcript holds anything worth saving."""
        return heard_anything(self.transcript)

    def on_heard(self, listener: Callable[[int, Message], None]) -> None:
        """Call `listener(position, message)` with each message the transcript gains, as it is
        committed: exactly the message `transcript` holds at that position. It runs inside the
        session's event callback, so it must only take note (no I/O, no waiting)."""
        self._listeners.append(listener)

    def detach(self) -> None:
        """Stop listening; what was recorded stays readable."""
        self._session.off("conversation_item_added", self._on_item_added)
        self._session.off("speech_created", self._on_speech_created)
        if self._meter is not None:
            self._meter.stop_reporting()  # stays in the chain as a plain pass-through
            self._meter = None

    def _place_meter(self) -> None:
        head = self._session.output.audio
        if head is None or head is self._meter:
            return
        if self._meter is not None:
            self._meter.stop_reporting()
        self._meter = PlayoutMeter(head, self._on_playback)
        self._session.output.audio = self._meter

    def _on_speech_created(self, ev: SpeechCreatedEvent) -> None:
        self._sources[ev.speech_handle.id] = ev.source
        self._place_meter()

    def _on_playback(self, playback: Playback) -> None:
        speech = self._session.current_speech
        if speech is None:
            return
        self._playbacks.setdefault(speech.id, []).append(playback)

    def _on_item_added(self, ev: ConversationItemAddedEvent) -> None:
        item = ev.item
        if not isinstance(item, llm.ChatMessage) or item.role not in ("user", "assistant"):
            return
        text = item.text_content or ""
        raw = item.raw_text_content or ""
        turn = Turn(
            role="user" if item.role == "user" else "assistant",
            text=text,
            interrupted=item.interrupted,
            speech=self._speech_for(item) if item.role == "assistant" else None,
            raw_text=raw if raw != text else None,
        )
        self._turns.append(turn)
        judgement = judge(turn)
        verdict = judgement.verdict
        if turn.interrupted and not verdict.contributes:
            log.info("transcript.reply_withheld", reason=verdict.value, message_id=item.id)
        if verdict.contributes:  # `assemble` keeps it: the same message at the same position
            position, self._heard = self._heard, self._heard + 1
            message = Message(role=turn.role, content=judgement.text)
            for listener in self._listeners:
                listener(position, message)

    def _speech_for(self, message: llm.ChatMessage) -> Speech | None:
        handle = self._session.current_speech
        if handle is None:
            return None
        return Speech(
            source=self._sources.get(handle.id),
            interrupted=handle.interrupted,
            synthesized=_TTS_FIRST_BYTE_METRIC in message.metrics,
            playbacks=tuple(self._playbacks.pop(handle.id, ())),
        )


def attach(session: AgentSession[Any]) -> TranscriptRecorder:
    """Start recording what the caller hears and says on this session."""
    return TranscriptRecorder(session)
