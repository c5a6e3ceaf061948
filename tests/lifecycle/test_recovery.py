"""What the sweeper does with a silent journal, decided from plain values."""

from __future__ import annotations

import pytest

from lifecycle.recovery import Act, Decision, LostPart, decide, what_to_save
from memory.store import JournalEntry


def entries(*texts: str) -> list[JournalEntry]:
    """Alternating assistant / user messages at positions 0, 1, ..."""
    roles = ("assistant", "user")
    return [JournalEntry(i, roles[i % 2], text) for i, text in enumerate(texts)]


@pytest.mark.parametrize(
    ("known", "valid", "silent", "started", "expected"),
    [
        (True, True, 61.0, False, Decision(Act.SAVE)),
        (True, True, 61.0, True, Decision(Act.INTERRUPTED, "save_started")),
        (False, True, 99.0, False, Decision(Act.WAIT, "agent_unknown")),
        (False, True, 100.0, False, Decision(Act.DROP, "agent_unknown")),  # at the bound
        (False, True, 100.0, True, Decision(Act.DROP, "agent_unknown")),
        (True, False, 99.0, False, Decision(Act.WAIT, "identity_invalid")),
        (True, False, 101.0, False, Decision(Act.DROP, "identity_invalid")),
    ],
)
def test_decide(known: bool, valid: bool, silent: float, started: bool, expected: Decision) -> None:
    decision = decide(
        save_started=started,
        agent_known=known,
        identity_valid=valid,
        silent_seconds=silent,
        drop_after=100.0,
    )
    assert decision == expected


def test_a_whole_call_saves_every_heard_message_in_position_order() -> None:
    heard = entries("Hello.", "I moved to Porto.", "Noted.")
    part = what_to_save(list(reversed(heard)), 0, "call.ended")
    assert part == LostPart(
        [
            {"role": "assistant", "content": "Hello."},
            {"role": "user", "content": "I moved to Porto."},
            {"role": "assistant", "content": "Noted."},
        ],
        None,
    )


def test_nothing_heard_is_nothing_to_save() -> None:
    assert what_to_save([], 0, "call.ended") is None
    assert what_to_save(entries(" ", "\n"), 0, "turn") is None


def test_turn_mode_saves_only_what_no_pass_covered() -> None:
    heard = entries("Hello.", "I moved.", "Noted.", "And my dog is Rex.")
    part = what_to_save(heard, 3, "turn")
    assert part == LostPart([{"role": "user", "content": "And my dog is Rex."}], 2, 3)


def test_turn_mode_with_everything_covered_reads_the_last_exchange_for_the_summary() -> None:
    heard = entries("Hello.", "I moved.", "Noted.")
    part = what_to_save(heard, 3, "turn")
    assert part is not None
    assert [m["content"] for m in part.messages] == ["I moved.", "Noted."]
    assert part.first_turn == 1


def test_a_gap_left_by_a_lost_batch_keeps_positions() -> None:
    """Positions are the transcript's: a missing batch never shifts what passes covered."""
    heard = [JournalEntry(0, "assistant", "Hi."), JournalEntry(3, "user", "Rex.")]
    part = what_to_save(heard, 2, "turn")
    assert part == LostPart([{"role": "user", "content": "Rex."}], 1, 3)  # its turn: 3


def test_a_swept_save_sends_a_nul_dropped_and_a_lone_surrogate_as_replacement() -> None:
    """The journal keeps what the model said; the save sends it as `memory` takes it."""
    heard = [
        JournalEntry(0, "user", "I moved."),
        JournalEntry(1, "assistant", "Noted\x00 \ud800."),
        JournalEntry(2, "assistant", "\x00"),
    ]
    part = what_to_save(heard, 0, "call.ended")
    assert part is not None
    assert [m["content"] for m in part.messages] == ["I moved.", "Noted \ufffd.", ""]
    assert what_to_save([JournalEntry(0, "assistant", "\x00 ")], 0, "call.ended") is None
