"""When turn passes start: never overlapping, coalesced, none once the call is closing."""

from __future__ import annotations

import pytest

from lifecycle.pass_schedule import (
    PassState,
    final_part,
    on_closing,
    on_pass_done,
    on_reply,
    running_pass_wait,
    uncovered,
)

IDLE, RUNNING = PassState(), PassState(running=True)
PENDING = PassState(running=True, pending=True)
CLOSING = PassState(running=True, closing=True)


@pytest.mark.parametrize(
    ("state", "after", "start"),
    [
        (IDLE, RUNNING, True),  # a reply with no pass running starts one
        (RUNNING, PENDING, False),  # while one runs: one pending, never a second at once
        (PENDING, PENDING, False),  # more replies meanwhile coalesce into the same pending pass
        (CLOSING, CLOSING, False),  # the call is ending: the final pass covers it
        (PassState(closing=True), PassState(closing=True), False),
    ],
)
def test_a_reply(state: PassState, after: PassState, start: bool) -> None:
    assert on_reply(state) == (after, start)


@pytest.mark.parametrize(
    ("state", "after", "start"),
    [
        (RUNNING, IDLE, False),
        (PENDING, RUNNING, True),  # the pending pass starts as the running one ends
        (CLOSING, PassState(closing=True), False),
    ],
)
def test_a_pass_ends(state: PassState, after: PassState, start: bool) -> None:
    assert on_pass_done(state) == (after, start)


def test_closing_drops_the_pending_pass() -> None:
    assert on_closing(PENDING) == PassState(running=True, closing=True)
    assert on_pass_done(on_closing(PENDING)) == (PassState(closing=True), False)


@pytest.mark.parametrize(
    ("heard", "covered", "rest", "final"),
    [
        ("abcd", 0, "abcd", "abcd"),
        ("abcd", 2, "cd", "cd"),  # a dropped pass leaves its part for the next one
        ("abcd", 4, "", "cd"),  # all covered: the final pass reads the last exchange
        ("", 0, "", ""),  # nothing heard: nothing to save
    ],
)
def test_what_a_pass_reads(heard: str, covered: int, rest: str, final: str) -> None:
    assert "".join(uncovered(list(heard), covered)) == rest
    assert "".join(final_part(list(heard), covered)) == final


@pytest.mark.parametrize(
    ("save_timeout", "model_timeout", "wait"),
    [
        (40.0, 30.0, 5.0),  # the defaults: the final pass keeps 30 s for its model, 5 s more
        (11.0, 10.0, 0.5),
        (10.0, 10.0, 0.0),  # at the limit: the running pass is cancelled at once
        (5.0, 30.0, 0.0),  # past it (configuration refuses it): never a negative wait
    ],
)
def test_how_long_the_save_waits_for_a_running_pass(
    save_timeout: float, model_timeout: float, wait: float
) -> None:
    assert running_pass_wait(save_timeout, model_timeout) == wait
