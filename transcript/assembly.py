"""The saved transcript: committed user and assistant text, with interrupted replies trimmed to
what the caller provably heard (the rule itself is `transcript.heard`).

livekit-agents 1.8.9 commits an interrupted reply with `interrupted=True`, but the text it stores
is not a measurement: with a transcript synchronizer it is the synchronizer's wall-clock pacing
(which runs ahead of a slow voice whose audio arrives faster than it plays: a 125 words/min
reply was committed with 15 words when 11 had started playing); without one it is the whole
generated text; `say(text, audio=...)` with pre-recorded audio gets a proportional guess; a reply
cut because the TTS failed is flagged interrupted although nobody interrupted it.

So an interrupted assistant turn contributes only the text `transcript.heard` proves from the
measured audio chain, after these checks (the first failure names the verdict):

1. its speech is known (`SPEECH_UNKNOWN`);
2. the speech handle itself was interrupted; the message flag alone means the TTS failed
   (`CUT_WITHOUT_INTERRUPTION`);
3. the audio came from the TTS: a `say()` whose message has no TTS time-to-first-byte metric
   used pre-recorded audio, which carries no timing of its words (`PRERECORDED_AUDIO`);
4. the audio output reported playback for it (`NOT_PLAYED`, e.g. text-only output);
5. some segment's frames carried timed transcripts (`UNMEASURED`, e.g. a TTS without them, or
   frames livekit resampled for the sink, which drops frame data);
6. at least one whole word or sentence finished playing (`NOTHING_FINISHED`).

The contributed text is the text the TTS reported for the audio that finished playing: a prefix
of what was generated (the TTS's input, or its aligned words), which can differ from the
committed message when that holds the synchronizer's estimate. Turns not flagged interrupted
played in full and contribute their committed text.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from transcript.heard import heard_text
from transcript.models import Judgement, Message, Speech, Turn, Verdict


def assemble(turns: Iterable[Turn]) -> list[Message]:
    """The transcript to save: contributing turns, in order, as chat messages."""
    messages: list[Message] = []
    for turn in turns:
        judgement = judge(turn)
        if judgement.verdict.contributes:
            messages.append(Message(role=turn.role, content=judgement.text))
    return messages


def judge(turn: Turn) -> Judgement:
    """Whether this turn counts, and with which text."""
    if not turn.text.strip():
        return Judgement(Verdict.EMPTY, "")
    if turn.role == "user" or not turn.interrupted:
        return Judgement(Verdict.COMPLETE, turn.text)
    if turn.speech is None:
        return Judgement(Verdict.SPEECH_UNKNOWN, "")
    return _judge_interrupted(turn.speech)


def heard_anything(messages: Sequence[Message]) -> bool:
    """True when the transcript holds any non-blank text."""
    return any(message["content"].strip() for message in messages)


def _judge_interrupted(speech: Speech) -> Judgement:
    if not speech.interrupted:
        return Judgement(Verdict.CUT_WITHOUT_INTERRUPTION, "")
    if speech.source == "say" and not speech.synthesized:
        return Judgement(Verdict.PRERECORDED_AUDIO, "")
    if not speech.playbacks:
        return Judgement(Verdict.NOT_PLAYED, "")
    heard = heard_text(speech.playbacks)
    if heard is None:
        return Judgement(Verdict.UNMEASURED, "")
    if not heard.strip():
        return Judgement(Verdict.NOTHING_FINISHED, "")
    return Judgement(Verdict.PLAYED_PREFIX, heard.strip())
