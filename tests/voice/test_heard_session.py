"""The measurement in a real AgentSession: voices at human rates, audio delivered like a provider.

Each test cuts a reply while it plays and compares the saved prefix with the truth: the audio
length of every word the fake TTS voiced (`Spoken`) against the position the wall-clock speaker
reached. The transcript synchronizer stays in the chain, as in the worker.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from livekit.agents import Agent, AgentSession, llm, tts

from testkit.fake_devices import FakeCallIO, fake_session, wait_for_state, wire
from testkit.fake_models import FakeLLM
from tests.voice.fake_speech import Spoken, SpokenAlignedTTS, SpokenTTS, Voice
from transcript.recorder import TranscriptRecorder, attach
from transcript.sentences import measurable

REPLY = "Hello there, my friend. I can help you with that today. Let me check your account now."
SENTENCE_PAD = 0.01
"""Silence livekit's emitter appends to each sentence a non-streaming TTS synthesizes."""


@dataclass(slots=True)
class Cut:
    saved: str
    committed: str
    played: float
    spoken: list[Spoken]


@asynccontextmanager
async def _session(model: tts.TTS[Any]) -> AsyncIterator[tuple[AgentSession[None], FakeCallIO]]:
    session = fake_session(llm_model=FakeLLM([REPLY]), tts_model=model)
    call_io = wire(session)
    try:
        yield session, call_io
    finally:
        await session.aclose()
        await call_io.speaker.aclose()


async def cut_reply(model: tts.TTS[Any], spoken: list[Spoken], *, after: float) -> Cut:
    """Play the reply, interrupt it `after` seconds into speaking, return what was kept."""
    async with _session(model) as (session, call_io):
        recorder: TranscriptRecorder = attach(session)
        await session.start(agent=Agent(instructions="You help."))
        handle = session.generate_reply(user_input="Hi.")
        await wait_for_state(session, "speaking")
        await asyncio.sleep(after)
        await session.interrupt()
        await handle
        transcript = recorder.transcript
    [played] = call_io.speaker.segments
    assert played.interrupted
    committed = [
        item.text_content or ""
        for item in session.history.items
        if isinstance(item, llm.ChatMessage) and item.role == "assistant"
    ]
    saved = transcript[1]["content"] if len(transcript) > 1 else ""
    return Cut(saved, committed[0], played.played, spoken)


def played_sentences(cut: Cut) -> str:
    """The sentences whose synthesized audio ended by the position the speaker reached."""
    heard: list[str] = []
    end = 0.0
    for sentence in cut.spoken:
        end += sum(sentence.word_seconds) + SENTENCE_PAD
        if end > cut.played + 1e-6:
            break
        heard.append(sentence.text)
    return " ".join(heard)


def played_words(cut: Cut) -> list[str]:
    """The words whose audio ended by the position the speaker reached."""
    heard: list[str] = []
    end = 0.0
    for spoken in cut.spoken:
        for word, seconds in zip(spoken.text.split(), spoken.word_seconds, strict=True):
            end += seconds
            if end > cut.played + 1e-6:
                return heard
            heard.append(word)
    return heard


async def test_sentence_wrapped_voice_keeps_exactly_the_sentences_that_played() -> None:
    """The worker's TTS set-up (sentence by sentence, ends on the audio): whole played sentences."""
    model = SpokenTTS(Voice(words_per_minute=200, delivery=1.5, first_byte=0.25))
    cut = await cut_reply(measurable(model), model.spoken, after=1.6)
    assert cut.saved == played_sentences(cut)
    assert cut.saved.startswith("Hello there, my friend.")
    assert "I can help" not in cut.saved  # the cut sentence contributes nothing


async def test_aligned_voice_keeps_exactly_the_words_that_played() -> None:
    """A streaming TTS with word timestamps: every word whose audio ended, and no other."""
    model = SpokenAlignedTTS(Voice(words_per_minute=150, delivery=3.0, first_byte=0.1, seed=1))
    cut = await cut_reply(measurable(model), model.spoken, after=1.2)
    assert cut.saved.split() == played_words(cut)
    assert cut.saved and REPLY.startswith(cut.saved)


async def test_slow_voice_fast_audio_never_saves_the_synchronizers_extra_words() -> None:
    """The issue's case: 125 words/min, audio 5x real time, livekit's own sentence adapter.

    The synchronizer paces ahead of such a voice and the framework commits its estimate; the
    saved prefix holds only the sentence that finished playing.
    """
    model = SpokenTTS(Voice(words_per_minute=125, delivery=5.0, first_byte=0.1, seed=2))
    cut = await cut_reply(model, model.spoken, after=2.8)
    assert cut.saved == played_sentences(cut)
    assert cut.saved == "Hello there, my friend."
    assert len(cut.saved.split()) <= len(played_words(cut))
