"""The conversation session: models from configuration, every reply's playback measurable.

The TTS goes through `transcript.sentences.measurable`: OpenAI's TTS is not streaming, so it is
synthesized sentence by sentence with each sentence's end carried on its last audio frame, which
is what lets the transcript recorder prove which sentences of an interrupted reply played. Room
transcription stays on with synchronization for the caller's display; the saved transcript does
not depend on it.
"""

from __future__ import annotations

from typing import Any

from livekit.agents import AgentSession, room_io
from livekit.plugins import openai

from transcript.sentences import measurable
from worker.config import VoiceModels

ROOM_OPTIONS = room_io.RoomOptions(
    text_output=room_io.TextOutputOptions(sync_transcription=True),
    close_on_disconnect=True,
)


def build_session(models: VoiceModels) -> AgentSession[Any]:
    kwargs: dict[str, Any] = {"api_key": models.api_key}
    if models.base_url:
        kwargs["base_url"] = models.base_url
    return AgentSession(
        stt=openai.STT(model=models.stt, **kwargs),
        llm=openai.LLM(model=models.llm, **kwargs),
        tts=measurable(openai.TTS(model=models.tts, voice=models.voice, **kwargs)),
    )
