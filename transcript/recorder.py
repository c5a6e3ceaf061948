"""Listens to one AgentSession and keeps what the caller heard and said.

The entrypoint calls `attach(session)` once, before or after `session.start()`. The recorder only
turns public events into the plain values of `transcript.models`; the rule deciding what counts
lives in `transcript.assembly`. Every callback is synchronous, as livekit's event emitter
requires, and does no I/O besides one log event per withheld reply.

Facts come from:
- `conversation_item_added`: committed messages, in order (handoffs, config updates and other
  non-message items are skipped; tool calls never arrive here);
- `speech_created`: the source of each speech (`say` or `generate_reply`);
- the audio output's `playback_finished`: attributed to `session.current_speech`, which is the
  speech playing when the report arrives and still the producing speech when its message is
  committed (observed in every configuration of the tests, including a close mid-reply).

The audio output is (re)subscribed when each speech is created, because RoomIO installs it
during `start()` and it may be replaced later.
"""

from __future__ import annotations

from typing import Any

import structlog
from livekit.agents import (
    AgentSession,
    ConversationItemAddedEvent,
    SpeechCreatedEvent,
    llm,
)
from livekit.agents.voice.io import AudioOutput, PlaybackFinishedEvent

from transcript.assembly import assemble, heard_anything, judge
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
        self._audio: AudioOutput | None = None
        session.on("conversation_item_added", self._on_item_added)
        session.on("speech_created", self._on_speech_created)
        self._follow_audio_output()

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

    def detach(self) -> None:
        """Stop listening; what was recorded stays readable."""
        self._session.off("conversation_item_added", self._on_item_added)
        self._session.off("speech_created", self._on_speech_created)
        if self._audio is not None:
            self._audio.off("playback_finished", self._on_playback_finished)
            self._audio = None

    def _follow_audio_output(self) -> None:
        current = self._session.output.audio
        if current is self._audio:
            return
        if self._audio is not None:
            self._audio.off("playback_finished", self._on_playback_finished)
        self._audio = current
        if current is not None:
            current.on("playback_finished", self._on_playback_finished)

    def _on_speech_created(self, ev: SpeechCreatedEvent) -> None:
        self._sources[ev.speech_handle.id] = ev.source
        self._follow_audio_output()

    def _on_playback_finished(self, ev: PlaybackFinishedEvent) -> None:
        speech = self._session.current_speech
        if speech is None:
            return
        self._playbacks.setdefault(speech.id, []).append(
            Playback(
                position=ev.playback_position,
                interrupted=ev.interrupted,
                synchronized_transcript=ev.synchronized_transcript,
            )
        )

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
        verdict = judge(turn)
        if turn.interrupted and not verdict.contributes:
            log.info("transcript.reply_withheld", reason=verdict.value, message_id=item.id)

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
