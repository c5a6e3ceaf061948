"""The conversation session: models from configuration, the transcript synchronizer kept.

Room transcription output stays on with synchronization, because the synchronized transcript
is what makes the played prefix of an interrupted reply knowable.
"""

from __future__ import annotations

from typing import Any

from livekit.agents import AgentSession, room_io
from livekit.plugins import openai

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
        tts=openai.TTS(model=models.tts, voice=models.voice, **kwargs),
    )
