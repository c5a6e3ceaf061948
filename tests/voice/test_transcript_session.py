"""The recorder on a real AgentSession: the saved transcript holds only what provably played.

The session is set up as the worker's is (`transcript.sentences.measurable` around the TTS, the
transcript synchronizer in the chain). The story's first sentence lasts about half a second and
the cut lands in the second, so a correct prefix is exactly the first sentence (or, with word
timestamps, the words that fit in the played audio).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass

import structlog.testing
from livekit.agents import Agent, AgentSession, llm

from testkit.fake_devices import FakeCallIO, fake_session, wait_for_state, wait_until, wire
from testkit.fake_models import (
    SECONDS_PER_CHAR,
    FakeAlignedTTS,
    FakeLLM,
    FakeSTT,
    FakeTTS,
    prerecorded,
)
from transcript.models import Message
from transcript.recorder import TranscriptRecorder, attach
from transcript.sentences import measurable

FIRST = "Once upon a time there was Ada."
STORY = (
    FIRST + " She kept a lighthouse and counted every ship that passed her rock. One stormy "
    "night a ship without lights appeared on the horizon."
)
ASK = "Tell me a story."
CUT_AFTER = 0.75


@dataclass(slots=True)
class Call:
    session: AgentSession[None]
    io: FakeCallIO
    recorder: TranscriptRecorder
    llm: FakeLLM
    stt: FakeSTT | None


@asynccontextmanager
async def call(
    *replies: str,
    synchronized: bool = True,
    transcription: bool = True,
    aligned: bool = False,
    barge_in: bool = False,
    tts_fail_on: str | None = None,
    llm_word_delay: float = 0.0,
    attach_after_start: bool = False,
    attach_before_outputs: bool = False,
) -> AsyncIterator[Call]:
    """A started session with fake I/O and a recorder attached the way the entrypoint does."""
    fake_llm = FakeLLM(replies, word_delay=llm_word_delay)
    fake_stt = FakeSTT() if barge_in else None
    session = fake_session(
        llm_model=fake_llm,
        tts_model=measurable(FakeAlignedTTS() if aligned else FakeTTS(fail_on=tts_fail_on)),
        stt_model=fake_stt,
        aligned_transcript=aligned,
    )
    recorder = attach(session) if attach_before_outputs else None
    call_io = wire(session, synchronized=synchronized, transcription=transcription, mic=barge_in)
    if recorder is None and not attach_after_start:
        recorder = attach(session)
    await session.start(agent=Agent(instructions="You tell stories."))
    recorder = recorder or attach(session)
    try:
        yield Call(session, call_io, recorder, fake_llm, fake_stt)
    finally:
        await session.aclose()
        await call_io.speaker.aclose()


def turn_count_is(recorder: TranscriptRecorder, count: int) -> Callable[[], bool]:
    return lambda: len(recorder.turns) == count


def committed(session: AgentSession[None]) -> list[tuple[str, bool, str]]:
    """What the framework itself stored: (role, interrupted, text) per message."""
    return [
        (item.role, item.interrupted, item.text_content or "")
        for item in session.history.items
        if isinstance(item, llm.ChatMessage) and item.role in ("user", "assistant")
    ]


async def cut_story(c: Call, *, after: float = CUT_AFTER) -> None:
    """Start the story, let it play for a moment, then interrupt it through the API."""
    handle = c.session.generate_reply(user_input=ASK)
    await wait_for_state(c.session, "speaking")
    await asyncio.sleep(after)
    await c.session.interrupt()
    await handle


def assert_played_prefix(content: str, c: Call, *, segment: int = 0) -> None:
    """A non-empty proper prefix of the story whose audio fits in what played (sentence-wrapped:
    exactly the first sentence, the one that finished)."""
    assert content and STORY.startswith(content) and content != STORY
    played = c.io.speaker.segments[segment]
    assert played.interrupted
    assert len(content) * SECONDS_PER_CHAR <= played.played


async def test_barge_in_saves_the_sentence_that_finished_playing() -> None:
    """A caller talking over the reply leaves the played sentence, whatever was committed."""
    async with call(STORY, "Sure.", barge_in=True) as c:
        assert c.stt is not None
        handle = c.session.generate_reply(user_input=ASK)
        await wait_for_state(c.session, "speaking")
        await asyncio.sleep(CUT_AFTER)
        await c.stt.say_user("wait stop please", interim_delay=0.02)
        await handle
        await wait_until(turn_count_is(c.recorder, 4))
        transcript = c.recorder.transcript
    assert_played_prefix(transcript[1]["content"], c)
    assert transcript == [
        Message(role="user", content=ASK),
        Message(role="assistant", content=FIRST),
        Message(role="user", content="wait stop please"),
        Message(role="assistant", content="Sure."),
    ]
    assert committed(c.session)[1][:2] == ("assistant", True)


async def test_tts_aligned_transcript_saves_the_played_words() -> None:
    """With word timestamps the saved prefix is whole words that fit in the played audio."""
    async with call(STORY, aligned=True) as c:
        await cut_story(c)
        transcript = c.recorder.transcript
    assert transcript[0] == Message(role="user", content=ASK)
    assert_played_prefix(transcript[1]["content"], c)
    words = transcript[1]["content"].split()
    assert words == STORY.split()[: len(words)]
    assert len(transcript) == 2


async def test_no_synchronizer_still_saves_only_the_played_sentence() -> None:
    """Without a synchronizer the framework commits the whole text; the measurement cuts it."""
    async with call(STORY, synchronized=False) as c:
        await cut_story(c)
        transcript = c.recorder.transcript
    assert committed(c.session)[1] == ("assistant", True, STORY)
    assert transcript == [
        Message(role="user", content=ASK),
        Message(role="assistant", content=FIRST),
    ]


async def test_withheld_reply_is_logged_with_reason_and_no_text() -> None:
    """Dropping a reply leaves one log event naming the reason, never the words."""
    with structlog.testing.capture_logs() as logs:
        async with call(STORY, synchronized=False) as c:
            await cut_story(c, after=0.1)  # the whole text is committed; no sentence finished
    withheld = [e for e in logs if e["event"] == "transcript.reply_withheld"]
    assert [e["reason"] for e in withheld] == ["nothing_finished"]
    assert not any(STORY[:20] in repr(e) for e in logs)
    assert c.recorder.transcript == [Message(role="user", content=ASK)]


async def test_transcription_disabled_still_saves_only_the_played_sentence() -> None:
    """A synchronizer without its text output turns off; the measurement does not depend on it."""
    async with call(STORY, transcription=False) as c:
        await cut_story(c)
        transcript = c.recorder.transcript
    assert committed(c.session)[1] == ("assistant", True, STORY)
    assert transcript[1] == Message(role="assistant", content=FIRST)


async def test_interrupted_prerecorded_say_saves_nothing() -> None:
    """Pre-recorded audio carries no timing of its words: nothing unless it played to the end."""
    async with call() as c:
        handle = c.session.say(STORY, audio=prerecorded(2.0))
        await wait_for_state(c.session, "speaking")
        await asyncio.sleep(CUT_AFTER)
        await c.session.interrupt()
        await handle
        transcript = c.recorder.transcript
    assert committed(c.session)[0][:2] == ("assistant", True)
    assert transcript == []
    assert not c.recorder.heard


async def test_interrupted_say_through_tts_saves_the_played_sentence() -> None:
    """say() synthesized by the TTS is measured like any reply."""
    async with call() as c:
        handle = c.session.say(STORY)
        await wait_for_state(c.session, "speaking")
        await asyncio.sleep(CUT_AFTER)
        await c.session.interrupt()
        await handle
        transcript = c.recorder.transcript
    assert transcript == [Message(role="assistant", content=FIRST)]
    assert_played_prefix(transcript[0]["content"], c)


async def test_interrupted_before_any_audio_saves_only_the_user() -> None:
    """A reply cut before its first frame leaves only the user's words."""
    async with call(STORY, llm_word_delay=0.2) as c:
        handle = c.session.generate_reply(user_input=ASK)
        await asyncio.sleep(0.1)
        await c.session.interrupt()
        await handle
        transcript = c.recorder.transcript
    assert c.io.speaker.first_frame_at is None
    assert transcript == [Message(role="user", content=ASK)]


async def test_tts_failure_saves_nothing_of_the_cut_reply() -> None:
    """A reply cut by a failed TTS is flagged interrupted by the framework, and not saved."""
    async with call(STORY, tts_fail_on="stormy") as c:
        await c.session.generate_reply(user_input=ASK)
        transcript = c.recorder.transcript
    role, interrupted, _ = committed(c.session)[1]
    assert (role, interrupted) == ("assistant", True)
    assert transcript == [Message(role="user", content=ASK)]


async def test_uninterrupted_reply_is_saved_in_full() -> None:
    """A reply that played to the end is saved word for word."""
    async with call("Short and sweet.") as c:
        await c.session.generate_reply(user_input=ASK)
        transcript = c.recorder.transcript
    assert transcript == [
        Message(role="user", content=ASK),
        Message(role="assistant", content="Short and sweet."),
    ]
    assert c.recorder.heard


async def test_two_interruptions_in_one_call_each_save_their_prefix() -> None:
    """Each interrupted reply contributes its own played prefix, in order."""
    async with call(STORY, STORY, "Fine.", barge_in=True) as c:
        assert c.stt is not None
        c.session.generate_reply(user_input=ASK)
        for turns, said in ((1, "wait"), (3, "no stop")):
            await wait_until(turn_count_is(c.recorder, turns))
            await wait_for_state(c.session, "speaking")
            await asyncio.sleep(CUT_AFTER)
            await c.stt.say_user(said, interim_delay=0.02)
        await wait_until(turn_count_is(c.recorder, 6))
        transcript = c.recorder.transcript
    assert [m["role"] for m in transcript] == ["user", "assistant"] * 3
    assert [transcript[i]["content"] for i in (0, 2, 4, 5)] == [ASK, "wait", "no stop", "Fine."]
    assert [transcript[i]["content"] for i in (1, 3)] == [FIRST, FIRST]


async def test_hang_up_mid_reply_saves_the_played_prefix() -> None:
    """Closing the session while the agent speaks commits, and saves, the played prefix."""
    async with call(STORY) as c:
        c.session.generate_reply(user_input=ASK)
        await wait_for_state(c.session, "speaking")
        await asyncio.sleep(CUT_AFTER)
        await c.session.aclose()
        transcript = c.recorder.transcript
    assert transcript == [
        Message(role="user", content=ASK),
        Message(role="assistant", content=FIRST),
    ]
    assert_played_prefix(transcript[1]["content"], c)


async def test_recorder_attached_after_start_follows_the_audio_output() -> None:
    """Attaching once the session runs still sees playback and saves the prefix."""
    async with call(STORY, attach_after_start=True) as c:
        await cut_story(c)
        transcript = c.recorder.transcript
    assert transcript[1] == Message(role="assistant", content=FIRST)
    assert_played_prefix(transcript[1]["content"], c)


async def test_recorder_attached_before_the_outputs_exist_measures_from_the_first_speech() -> None:
    """As in the worker, where RoomIO installs the outputs during start(): the meter is placed
    when the first speech is created."""
    async with call(STORY, attach_before_outputs=True) as c:
        await cut_story(c)
        transcript = c.recorder.transcript
    assert transcript[1] == Message(role="assistant", content=FIRST)
    assert_played_prefix(transcript[1]["content"], c)
