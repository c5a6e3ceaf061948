"""The saved-transcript rule over plain values: which turns count and with what text."""

from __future__ import annotations

import pytest

from transcript.assembly import assemble, heard_anything, judge
from transcript.models import Mark, Message, Playback, Speech, SpeechSource, Turn, Verdict

FIRST = "Once upon a time."
REPLY = FIRST + " There was a lighthouse keeper."
MARKS = (Mark(FIRST, start=0.0), Mark("", start=1.0), Mark(" There was a", start=1.0))


def _cut(
    position: float = 1.5, *marks: Mark, interrupted: bool = True, complete: bool = False
) -> Playback:
    return Playback(
        position=position,
        interrupted=interrupted,
        synchronized_transcript=None,
        marks=marks or MARKS,
        pushed=position,
        audio_complete=complete,
    )


def _spoken(
    *playbacks: Playback,
    source: SpeechSource = "generate_reply",
    interrupted: bool = True,
    synthesized: bool = True,
) -> Speech:
    return Speech(
        source=source, interrupted=interrupted, synthesized=synthesized, playbacks=playbacks
    )


def _reply(text: str, speech: Speech | None, *, interrupted: bool = True) -> Turn:
    return Turn(role="assistant", text=text, interrupted=interrupted, speech=speech)


UNMEASURED = Playback(position=1.5, interrupted=True, pushed=1.5)

JUDGE_CASES: list[tuple[str, Turn, Verdict, str]] = [
    ("user turn", Turn(role="user", text="hello"), Verdict.COMPLETE, "hello"),
    ("blank user turn", Turn(role="user", text="  "), Verdict.EMPTY, ""),
    ("reply played in full", _reply(REPLY, None, interrupted=False), Verdict.COMPLETE, REPLY),
    ("played sentence", _reply(REPLY, _spoken(_cut())), Verdict.PLAYED_PREFIX, FIRST),
    (
        "earlier segment whole, last cut",
        _reply(
            "Hi. " + REPLY,
            _spoken(_cut(0.5, Mark("Hi. ", start=0.0, end=0.5), complete=True), _cut()),
        ),
        Verdict.PLAYED_PREFIX,
        "Hi. " + FIRST,
    ),
    (
        "say() through the TTS",
        _reply(REPLY, _spoken(_cut(), source="say")),
        Verdict.PLAYED_PREFIX,
        FIRST,
    ),
    ("speech never seen", _reply(REPLY, None), Verdict.SPEECH_UNKNOWN, ""),
    ("no timing on any frame", _reply(REPLY, _spoken(UNMEASURED)), Verdict.UNMEASURED, ""),
    ("no sentence finished", _reply(REPLY, _spoken(_cut(0.9))), Verdict.NOTHING_FINISHED, ""),
    (
        "say() with pre-recorded audio",
        _reply(REPLY, _spoken(_cut(), source="say", synthesized=False)),
        Verdict.PRERECORDED_AUDIO,
        "",
    ),
    (
        "TTS failed: message flagged, handle not",
        _reply(REPLY, _spoken(_cut(interrupted=False), interrupted=False)),
        Verdict.CUT_WITHOUT_INTERRUPTION,
        "",
    ),
    ("text-only output: no playback", _reply(REPLY, _spoken()), Verdict.NOT_PLAYED, ""),
    ("blank interrupted reply", _reply(" ", _spoken(_cut())), Verdict.EMPTY, ""),
]


@pytest.mark.parametrize(
    ("turn", "verdict", "text"),
    [pytest.param(turn, verdict, text, id=name) for name, turn, verdict, text in JUDGE_CASES],
)
def test_judge(turn: Turn, verdict: Verdict, text: str) -> None:
    """Each kind of committed turn gets the verdict and the text the rule names."""
    judgement = judge(turn)
    assert (judgement.verdict, judgement.text) == (verdict, text)
    assert verdict.contributes == bool(text)


def test_assemble_keeps_order_and_drops_unproven_replies() -> None:
    """Contributing turns keep their order; an unproven reply leaves no trace."""
    turns = [
        Turn(role="user", text="Tell me a story."),
        _reply(REPLY, _spoken(_cut())),
        Turn(role="user", text="wait"),
        _reply(REPLY, _spoken(UNMEASURED)),
        Turn(role="user", text="stop"),
        _reply("Sure.", None, interrupted=False),
    ]
    assert assemble(turns) == [
        {"role": "user", "content": "Tell me a story."},
        {"role": "assistant", "content": FIRST},
        {"role": "user", "content": "wait"},
        {"role": "user", "content": "stop"},
        {"role": "assistant", "content": "Sure."},
    ]


@pytest.mark.parametrize(
    ("messages", "heard"),
    [
        ([], False),
        ([Message(role="user", content="  ")], False),
        ([Message(role="assistant", content="Hello")], True),
    ],
)
def test_heard_anything(messages: list[Message], heard: bool) -> None:
    """Only non-blank text counts as heard."""
    assert heard_anything(messages) is heard
