"""The saved transcript: committed user and assistant text, with interrupted replies trimmed to
what the caller verifiably heard.

livekit-agents 1.8.9 commits an interrupted reply with `interrupted=True`, but the text it stores
depends on the configuration, and the message alone does not say which case applied:

- transcript synchronizer in the chain: the text the synchronizer had released when playback
  stopped (word timestamps from the TTS, or a speaking-rate estimate), delivered as
  `synchronized_transcript` on the audio output's playback-finished event;
- no synchronizer, or transcription output disabled (the synchronizer then turns itself off):
  the whole generated text, and the playback event carries `synchronized_transcript=None`;
- `say(text, audio=...)` with pre-recorded audio: a proportional guess over the fixed phrase;
- a reply cut because the TTS failed: flagged interrupted although nobody interrupted it, with
  a synchronizer guess over text whose audio was never made;
- interrupted before any audio: no assistant message at all.

So an interrupted assistant turn contributes its text only when all of these hold, checked in
this order (the first failure names the verdict):

1. its speech is known (`SPEECH_UNKNOWN`);
2. the speech handle itself was interrupted; the message flag alone means the TTS failed
   (`CUT_WITHOUT_INTERRUPTION`);
3. the audio came from the TTS: a `say()` whose message has no TTS time-to-first-byte metric
   used pre-recorded audio (`PRERECORDED_AUDIO`);
4. the audio output reported playback for it (`NOT_PLAYED`, e.g. text-only output);
5. every playback report carried a synchronized transcript (`UNSYNCHRONIZED`);
6. the committed text ends with the last synchronized transcript, i.e. the framework stored the
   synchronizer's prefix and not something else (`TRANSCRIPT_MISMATCH`).

Anything failing contributes nothing. Turns not flagged interrupted played in full.

Observed with the real AgentSession and the fakes in `tests/voice/fake_*.py` (reproduced by
`tests/voice/test_transcript_session.py`), cutting a 165-character reply (2.5 s of audio) after
about 0.5 s: barge-in with a synchronizer committed "Once upon" and the playback event carried
the same text; word timestamps committed "Once upon a time there was a "; without a
synchronizer, or with transcription disabled, the framework committed all 165 characters and
the playback event had `synchronized_transcript=None`; a TTS failing on the second sentence left
the handle uninterrupted, the message interrupted and a playback event not interrupted;
`say()` with pre-recorded audio committed a proportional guess and its message had no
`tts_node_ttfb` metric, while `say()` through the TTS had one; in every case
`session.current_speech` was the producing speech when the message was committed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from transcript.models import Message, Speech, Turn, Verdict


def assemble(turns: Iterable[Turn]) -> list[Message]:
    """The transcript to save: contributing turns, in order, as chat messages."""
    return [Message(role=turn.role, content=turn.text) for turn in turns if judge(turn).contributes]


def judge(turn: Turn) -> Verdict:
    """Whether this turn's committed text is what the caller heard."""
    if not turn.text.strip():
        return Verdict.EMPTY
    if turn.role == "user" or not turn.interrupted:
        return Verdict.COMPLETE
    if turn.speech is None:
        return Verdict.SPEECH_UNKNOWN
    return _judge_interrupted(turn.speech, turn.raw_text or turn.text)


def heard_anything(messages: Sequence[Message]) -> bool:
    """True when the transcript holds any non-blank text."""
    return any(message["content"].strip() for message in messages)


def _judge_interrupted(speech: Speech, committed: str) -> Verdict:
    if not speech.interrupted:
        return Verdict.CUT_WITHOUT_INTERRUPTION
    if speech.source == "say" and not speech.synthesized:
        return Verdict.PRERECORDED_AUDIO
    if not speech.playbacks:
        return Verdict.NOT_PLAYED
    synced = [p.synchronized_transcript for p in speech.playbacks]
    last = synced[-1]
    if last is None or any(text is None for text in synced):
        return Verdict.UNSYNCHRONIZED
    if not committed.endswith(last):
        return Verdict.TRANSCRIPT_MISMATCH
    return Verdict.PLAYED_PREFIX
