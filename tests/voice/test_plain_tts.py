"""What a plain TTS (livekit's own sentence adapter, no `measurable`) keeps of an interrupted
reply, as docs/voice-call.md and `callmemory` state it: each sentence whose end is known from the
next sentence's start, once that start has played; not a sentence that finished while the next
one was still being synthesized, which `measurable` keeps.
"""

from __future__ import annotations

from tests.voice.fake_speech import SpokenTTS, Voice
from tests.voice.test_heard_session import cut_reply, played_sentences
from transcript.sentences import measurable

FIRST = "Hello there, my friend."
SLOW_PROVIDER = Voice(words_per_minute=150, delivery=1.0, first_byte=1.2)
"""Audio at real time and 1.2 s before each sentence's first audio: a long pause between
sentences, in which the first one has finished playing and the second has not started."""


async def test_a_plain_tts_keeps_a_finished_sentence_once_the_next_one_plays() -> None:
    model = SpokenTTS(Voice(words_per_minute=150, delivery=1.0, first_byte=0.05))
    cut = await cut_reply(model, model.spoken, after=2.2)  # inside the second sentence
    assert cut.saved == FIRST == played_sentences(cut)


async def test_a_plain_tts_keeps_nothing_when_the_cut_falls_between_sentences() -> None:
    model = SpokenTTS(SLOW_PROVIDER)
    cut = await cut_reply(model, model.spoken, after=1.9)  # the first ended, no second yet
    assert played_sentences(cut) == FIRST  # the caller heard the whole first sentence
    assert cut.saved == ""  # but its end was never measured: the reply is withheld


async def test_measurable_keeps_the_sentence_that_finished_before_the_pause() -> None:
    model = SpokenTTS(SLOW_PROVIDER)
    cut = await cut_reply(measurable(model), model.spoken, after=1.9)
    assert cut.saved == FIRST == played_sentences(cut)
