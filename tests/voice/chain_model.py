"""A plain-value model of livekit's audio chain, for driving the heard rule with generated calls.

It reproduces what `transcript.meter` observes in a real session (checked against the real chain
by `tests/voice/test_heard_session.py`):

- streaming TTS: one synthesis; each word's mark (`"word "`, with start and end, or start only)
  rides the first chunk of that word's audio;
- sentence-wrapped TTS: one synthesis per sentence, each after the previous one finished, with
  its first-byte latency; the sentence mark (start only: the summed audio before it) rides its
  first chunk; livekit's emitter appends 10 ms of silence to each sentence's audio; with
  `transcript.sentences` an empty end mark rides the sentence's last chunk.

Audio arrives in uneven chunks at `delivery` x real time; the sink plays continuously from the
first frame, stalling when it runs out. A cut at wall time T gives the playback position, the
frames (and so marks) that had arrived, and whether all audio had.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

from transcript.models import Mark, Playback

Mode = Literal["word_timestamps", "word_starts", "sentence_ends", "sentences"]
SENTENCE_PAD = 0.01


def word_seconds(word: str, words_per_minute: float) -> float:
    letters = sum(char.isalnum() for char in word)
    return 60.0 / words_per_minute * (0.4 + 0.13 * letters)


@dataclass(frozen=True, slots=True)
class Frame:
    seconds: float
    arrives: float
    marks: tuple[Mark, ...] = ()


@dataclass(frozen=True, slots=True)
class Call:
    """One reply through the modelled chain, and the truth about its audio."""

    frames: tuple[Frame, ...]
    words: tuple[str, ...]
    word_ends: tuple[float, ...]
    """Where each word's audio ends, in segment seconds."""
    sentence_ends: tuple[tuple[int, float], ...]
    """(words so far, end of that sentence's synthesized audio) per sentence."""

    @property
    def playout_end(self) -> float:
        return _played_until(self.frames, float("inf"))[1]

    def cut_at(self, wall: float) -> Playback:
        """What the meter reports when the reply is cleared at wall time `wall`."""
        position, _ = _played_until(self.frames, wall)
        marks: list[Mark] = []
        pushed = 0.0
        arrived = [frame for frame in self.frames if frame.arrives <= wall]
        for frame in arrived:
            marks.extend(_arrived(mark, pushed) for mark in frame.marks)
            pushed += frame.seconds
        return Playback(
            position=position,
            interrupted=True,
            marks=tuple(marks),
            pushed=pushed,
            audio_complete=len(arrived) == len(self.frames),
        )


def build(
    sentences: Sequence[Sequence[str]],
    *,
    mode: Mode,
    words_per_minute: float,
    delivery: float,
    first_byte: float,
    chunks: Sequence[float],
) -> Call:
    sizes = itertools.cycle(chunks)
    frames: list[Frame] = []
    words: list[str] = []
    ends: list[float] = []
    sentence_ends: list[tuple[int, float]] = []
    audio, wall = 0.0, first_byte
    pending: list[Mark] = []
    for index, sentence in enumerate(sentences):
        if mode in ("sentence_ends", "sentences"):
            if index:
                wall += first_byte
            text = (" " if index else "") + " ".join(sentence)
            pending = [Mark(text=text, start=audio)]
        for word in sentence:
            seconds = word_seconds(word, words_per_minute)
            if mode == "word_timestamps":
                pending = [Mark(text=word + " ", start=audio, end=audio + seconds)]
            elif mode == "word_starts":
                pending = [Mark(text=word + " ", start=audio)]
            wall = _deliver(
                frames, seconds, wall=wall, delivery=delivery, sizes=sizes, marks=pending
            )
            pending = []
            audio += seconds
            words.append(word)
            ends.append(audio)
        if mode in ("sentence_ends", "sentences"):
            audio += SENTENCE_PAD
            wall = _deliver(
                frames, SENTENCE_PAD, wall=wall, delivery=delivery, sizes=sizes, marks=[]
            )
            if mode == "sentence_ends":
                last = frames[-1]
                frames[-1] = Frame(last.seconds, last.arrives, (Mark(text="", start=audio),))
        sentence_ends.append((len(words), audio))
    return Call(tuple(frames), tuple(words), tuple(ends), tuple(sentence_ends))


def _deliver(
    frames: list[Frame],
    seconds: float,
    *,
    wall: float,
    delivery: float,
    sizes: Iterator[float],
    marks: list[Mark],
) -> float:
    while seconds > 1e-12:
        chunk = min(seconds, next(sizes))
        wall += chunk / delivery
        frames.append(Frame(chunk, wall, tuple(marks)))
        marks = []
        seconds -= chunk
    return wall


def _played_until(frames: Sequence[Frame], wall: float) -> tuple[float, float]:
    """(seconds played by `wall`, wall time the last frame finishes playing)."""
    clock, played = 0.0, 0.0
    for frame in frames:
        clock = max(clock, frame.arrives)
        if clock < wall:
            played += min(frame.seconds, wall - clock)
        clock += frame.seconds
    return played, clock


def _arrived(mark: Mark, pushed: float) -> Mark:
    return Mark(text=mark.text, start=mark.start, end=mark.end, arrived_at=pushed)
