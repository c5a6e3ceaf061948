"""`measurable(tts)`: a streaming TTS with word timestamps stays as it is, still streaming; only
a TTS without them is synthesized sentence by sentence (and a streaming one says so)."""

from __future__ import annotations

import structlog.testing

from testkit.fake_models import FakeAlignedTTS, FakeTTS
from testkit.fake_streaming import FakeStreamingTTS
from transcript.sentences import SentenceEndsAdapter, measurable


def test_a_streaming_tts_with_word_timestamps_passes_through_untouched() -> None:
    for model in (FakeStreamingTTS(aligned=True), FakeAlignedTTS()):
        with structlog.testing.capture_logs() as logs:
            assert measurable(model) is model
        assert logs == []
        assert model.capabilities.streaming  # livekit streams it: no sentence adapter


def test_a_streaming_tts_without_timestamps_is_wrapped_and_says_it_loses_streaming() -> None:
    model = FakeStreamingTTS(aligned=False)
    with structlog.testing.capture_logs() as logs:
        wrapped = measurable(model)
    assert (
        isinstance(wrapped, SentenceEndsAdapter) and wrapped._wrapped_tts is model
    )  # livekit field
    assert [e["event"] for e in logs] == ["transcript.streaming_tts_wrapped"]
    assert logs[0]["tts"] == model.label
    with structlog.testing.capture_logs() as again:
        assert measurable(wrapped) is wrapped  # wrapping twice changes nothing
    assert again == []


def test_a_non_streaming_tts_is_wrapped_as_livekit_would_wrap_it_anyway() -> None:
    model = FakeTTS()
    with structlog.testing.capture_logs() as logs:
        wrapped = measurable(model)
    assert (
        isinstance(wrapped, SentenceEndsAdapter) and wrapped._wrapped_tts is model
    )  # livekit field
    assert logs == []  # nothing lost: it never streamed
