"""The saved-transcript rule over plain values: which turns count and with what text."""

from __future__ import annotations

import pytest

from transcript.assembly import assemble, heard_anything, judge
from transcript.models import Message, Playback, Speech, SpeechSource, Turn, Verdict

REPLY = "Once upon a time there was a lighthouse keeper."
PREFIX = "Once upon a time "


def _cut(text: str | None, *, interrupted: bool = True) -> Playback:
    return Playback(position=0.5, interrupted=interrupted, synchronized_transcript=text)


def _spoken(
    *playbacks: Playback,
    source: SpeechSource = "generate_reply",
    interrupted: bool = True,
    synthesized: bool = True,
) -> Speech:
    return Speech(
        source=source,
        interrupted=interrupted,
        synthesized=synthesized,
        playbacks=playbacks,
    )


def _reply(text: str, speech: Speech | None, *, interrupted: bool = True) -> Turn:
    return Turn(role="assistant", text=text, interrupted=interrupted, speech=speech)


JUDGE_CASES: list[tuple[str, Turn, Verdict]] = [
    ("user turn", Turn(role="user", text="hello"), Verdict.COMPLETE),
    ("blank user turn", Turn(role="user", text="  "), Verdict.EMPTY),
    ("reply played in full", _reply(REPLY, None, interrupted=False), Verdict.COMPLETE),
    ("synchronized prefix", _reply(PREFIX, _spoken(_cut(PREFIX))), Verdict.PLAYED_PREFIX),
    (
        "earlier segment full, last cut",
        _reply("First. " + PREFIX, _spoken(_cut("First. ", interrupted=False), _cut(PREFIX))),
        Verdict.PLAYED_PREFIX,
    ),
    (
        "say() through the TTS, synchronized",
        _reply(PREFIX, _spoken(_cut(PREFIX), source="say")),
        Verdict.PLAYED_PREFIX,
    ),
    ("speech never seen", _reply(PREFIX, None), Verdict.SPEECH_UNKNOWN),
    (
        "no synchronizer: full generated text",
        _reply(REPLY, _spoken(_cut(None))),
        Verdict.UNSYNCHRONIZED,
    ),
    (
        "synchronizer turned off for one segment",
        _reply("First. " + PREFIX, _spoken(_cut(None, interrupted=False), _cut(PREFIX))),
        Verdict.UNSYNCHRONIZED,
    ),
    (
        "say() with pre-recorded audio",
        _reply(PREFIX, _spoken(_cut(PREFIX), source="say", synthesized=False)),
        Verdict.PRERECORDED_AUDIO,
    ),
    (
        "TTS failed: message flagged, handle not",
        _reply(PREFIX, _spoken(_cut(PREFIX, interrupted=False), interrupted=False)),
        Verdict.CUT_WITHOUT_INTERRUPTION,
    ),
    ("text-only output: no playback", _reply(PREFIX, _spoken()), Verdict.NOT_PLAYED),
    (
        "stored text is not the synchronized prefix",
        _reply(REPLY, _spoken(_cut(PREFIX + "x"))),
        Verdict.TRANSCRIPT_MISMATCH,
    ),
    ("blank interrupted reply", _reply(" ", _spoken(_cut(" "))), Verdict.EMPTY),
]


@pytest.mark.parametrize(
    ("turn", "verdict"),
    [pytest.param(turn, verdict, id=name) for name, turn, verdict in JUDGE_CASES],
)
def test_judge(turn: Turn, verdict: Verdict) -> None:
    """Each kind of committed turn gets the verdict the rule names."""
    assert judge(turn) is verdict


def test_raw_text_is_checked_and_heard_text_is_saved() -> None:
    """Markup kept in the stored text is matched, and the saved text is the heard form."""
    turn = Turn(
        role="assistant",
        text="Hi there",
        raw_text="<expr/>Hi there",
        interrupted=True,
        speech=_spoken(_cut("Hi there")),
    )
    assert assemble([turn]) == [Message(role="assistant", content="Hi there")]


def test_assemble_keeps_order_and_drops_unverifiable_replies() -> None:
    """Contributing turns keep their order; an unverifiable reply leaves no trace."""
    turns = [
        Turn(role="user", text="Tell me a story."),
        _reply(PREFIX, _spoken(_cut(PREFIX))),
        Turn(role="user", text="wait"),
        _reply(REPLY, _spoken(_cut(None))),
        Turn(role="user", text="stop"),
        _reply("Sure.", None, interrupted=False),
    ]
    assert assemble(turns) == [
        {"role": "user", "content": "Tell me a story."},
        {"role": "assistant", "content": PREFIX},
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
