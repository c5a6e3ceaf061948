"""The definition of heard over plain values: tables, and a property over generated calls."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.voice.chain_model import Mode, build
from transcript.assembly import judge
from transcript.heard import TOLERANCE, heard_in, heard_text, mark_ends
from transcript.models import Mark, Playback, Speech, Turn, Verdict

S1, S2, S3 = "Hello there, my friend.", " I can help you today.", " Let me look."


def _sentences(*ends: float, complete: bool = False) -> tuple[Mark, ...]:
    """Sentence marks as livekit's adapter pushes them, with `transcript.sentences` end marks."""
    marks: list[Mark] = []
    start = 0.0
    for text, end in zip((S1, S2, S3), ends, strict=False):
        marks += [Mark(text, start=start, arrived_at=start), Mark("", start=end, arrived_at=end)]
        start = end
    return tuple(marks)


def _played(position: float, *marks: Mark, pushed: float = 9.0, complete: bool = False) -> Playback:
    return Playback(
        position=position, interrupted=True, marks=marks, pushed=pushed, audio_complete=complete
    )


WORDS = (
    Mark("Hello ", start=0.0, end=0.3),
    Mark("there, ", start=0.3, end=0.7),
    Mark("friend. ", start=0.7, end=1.2),
)
ADAPTER = (Mark(S1, start=0.0), Mark(S2, start=1.2, arrived_at=1.5), Mark(S3, start=2.4))

HEARD_CASES: list[tuple[str, Playback, str, bool]] = [
    ("word ends before the position", _played(0.75, *WORDS), "Hello there, ", False),
    ("word end exactly at the position", _played(0.7, *WORDS), "Hello there, ", False),
    ("a word still playing is not heard", _played(0.69, *WORDS), "Hello ", False),
    ("nothing finished", _played(0.2, *WORDS), "", False),
    ("all words, audio not complete", _played(1.3, *WORDS), "Hello there, friend. ", False),
    (
        "all words, audio complete",
        _played(1.3, *WORDS, complete=True),
        "Hello there, friend. ",
        True,
    ),
    ("sentence with an end mark", _played(1.3, *_sentences(1.2, 2.4)), S1, False),
    ("cut sentence contributes nothing", _played(2.3, *_sentences(1.2, 2.4)), S1, False),
    ("end mark not yet passed", _played(1.1, *_sentences(1.2, 2.4)), "", False),
    ("two sentences", _played(2.4, *_sentences(1.2, 2.4)), S1 + S2, False),
    ("framework adapter: next start ends it", _played(1.3, *ADAPTER), S1, False),
    ("framework adapter: last sentence, audio open", _played(3.5, *ADAPTER), S1 + S2, False),
    (
        "framework adapter: last sentence, audio complete",
        _played(3.5, *ADAPTER, pushed=3.5, complete=True),
        S1 + S2 + S3,
        True,
    ),
    (
        "framework adapter: stalled before the next sentence",
        _played(1.2, Mark(S1, start=0.0), pushed=1.2),
        "",
        False,
    ),
    (
        "character marks never leave half a word",
        _played(0.3, *(Mark(c, start=i * 0.1, end=(i + 1) * 0.1) for i, c in enumerate("ab cd"))),
        "ab ",
        False,
    ),
    (
        "character marks: partial word dropped",
        _played(0.2, *(Mark(c, start=i * 0.1, end=(i + 1) * 0.1) for i, c in enumerate("abcd"))),
        "",
        False,
    ),
    ("a mark without timing ends nothing", _played(5.0, Mark(S1), Mark(S2)), "", False),
]


@pytest.mark.parametrize(
    ("playback", "text", "whole"),
    [pytest.param(p, text, whole, id=name) for name, p, text, whole in HEARD_CASES],
)
def test_heard_in(playback: Playback, text: str, whole: bool) -> None:
    """Each kind of timing proves exactly the marks whose audio ended by the position."""
    result = heard_in(playback)
    assert (result.text, result.whole) == (text, whole)


def test_mark_ends_table() -> None:
    """Own end, else the next start, else the pushed audio once complete, else unknown."""
    marks = (Mark("a ", start=0.0, end=0.2), Mark("b ", start=0.2), Mark("c ", start=0.5))
    assert mark_ends(marks, pushed=0.9, audio_complete=False) == [0.2, 0.5, None]
    assert mark_ends(marks, pushed=0.9, audio_complete=True) == [0.2, 0.5, 0.9]
    assert mark_ends((Mark("a "), Mark("b ")), pushed=1.0, audio_complete=True) == [None, 1.0]


def test_heard_text_across_segments() -> None:
    """Segments heard whole chain together; the first one not heard whole ends the text."""
    whole = _played(0.3, Mark("One. ", start=0.0, end=0.3), pushed=0.3, complete=True)
    cut = _played(0.3, Mark("Two ", start=0.0, end=0.2), Mark("three. ", start=0.2, end=0.6))
    assert heard_text([whole, cut, whole]) == "One. Two "
    assert heard_text([cut, whole]) == "Two "
    unmeasured = _played(2.0, pushed=2.0, complete=True)
    assert heard_text([unmeasured, whole]) == ""
    assert heard_text([unmeasured]) is None


def _turn(*playbacks: Playback, committed: str = S1 + S2 + S3) -> Turn:
    speech = Speech(
        source="generate_reply", interrupted=True, synthesized=True, playbacks=playbacks
    )
    return Turn(role="assistant", text=committed, interrupted=True, speech=speech)


def test_saved_text_comes_from_the_measurement_not_the_committed_text() -> None:
    """The committed text (a synchronizer estimate, ahead or behind) neither adds nor removes."""
    playback = _played(1.3, *_sentences(1.2, 2.4))
    ahead = judge(_turn(playback, committed=S1 + S2 + " Let"))
    behind = judge(_turn(playback, committed="Hello"))
    assert ahead.verdict is behind.verdict is Verdict.PLAYED_PREFIX
    assert ahead.text == behind.text == S1


@pytest.mark.parametrize(
    ("playbacks", "verdict"),
    [
        pytest.param((_played(0.5, pushed=0.5),), Verdict.UNMEASURED, id="no marks at all"),
        pytest.param((_played(0.5, *WORDS),), Verdict.PLAYED_PREFIX, id="a word played"),
        pytest.param((_played(0.1, *WORDS),), Verdict.NOTHING_FINISHED, id="no word finished"),
    ],
)
def test_interrupted_verdicts(playbacks: Sequence[Playback], verdict: Verdict) -> None:
    assert judge(_turn(*playbacks)).verdict is verdict


# --------------------------------------------------------------------------- property

VOCAB = ("a", "I", "we", "the", "sea", "ship", "light", "keeper", "counted", "lighthouse", "Ada,")
sentence = st.lists(st.sampled_from(VOCAB), min_size=1, max_size=8).map(
    lambda words: [*words[:-1], words[-1].rstrip(",") + "."]
)


@settings(max_examples=400, deadline=None)
@given(
    sentences=st.lists(sentence, min_size=1, max_size=6),
    mode=st.sampled_from(["word_timestamps", "word_starts", "sentence_ends", "sentences"]),
    words_per_minute=st.floats(90, 200),
    delivery=st.floats(1, 5),
    first_byte=st.floats(0, 0.6),
    chunks=st.lists(st.floats(0.005, 0.3), min_size=1, max_size=12),
    cut=st.floats(0, 1, exclude_max=True),
)
def test_saved_prefix_only_holds_played_words_and_keeps_played_sentences(
    *,
    sentences: list[list[str]],
    mode: Mode,
    words_per_minute: float,
    delivery: float,
    first_byte: float,
    chunks: list[float],
    cut: float,
) -> None:
    """Any voice, delivery, chunking, timing kind and cut: nothing unplayed, nothing lost."""
    call = build(
        sentences,
        mode=mode,
        words_per_minute=words_per_minute,
        delivery=delivery,
        first_byte=first_byte,
        chunks=chunks,
    )
    playback = call.cut_at(cut * call.playout_end)
    saved = judge(_turn(playback, committed=" ".join(call.words))).text.split()
    kept = len(saved)
    assert tuple(saved) == call.words[:kept]
    reached = playback.position + TOLERANCE  # sub-audible slack for summed frame durations
    assert all(end <= reached for end in call.word_ends[:kept])
    played_words = sum(end <= reached for end in call.word_ends)
    played_sentences = [n for n, end in call.sentence_ends if end <= reached]
    if mode == "word_timestamps":
        assert kept == played_words
    if mode == "sentence_ends":
        assert kept == (played_sentences[-1] if played_sentences else 0)
    if mode in ("sentence_ends", "sentences"):
        assert kept == 0 or kept in [n for n, _ in call.sentence_ends]
