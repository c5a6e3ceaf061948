"""When a call's turn passes run, as decisions over plain values (`lifecycle.passes` does them).

Passes of one call never overlap: a reply that completes while a pass runs marks one pass
pending, and however many replies complete meanwhile, one pass starts when the running one ends
(coalesced: it covers all of them). Once the call is closing no pass starts; the final pass
(`lifecycle.saving`) covers what no pass covered. At close the save waits for a running pass
only as long as it can while still leaving the final pass one model call's timeout and some
time for its write (`running_pass_wait`); a pass still running then is cancelled, and what it
read, never covered, is read by the final pass.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal, TypeVar, get_args

Consolidate = Literal["call.ended", "turn"]
CONSOLIDATE_MODES: tuple[Consolidate, ...] = get_args(Consolidate)
DEFAULT_CONSOLIDATE: Consolidate = "call.ended"
M = TypeVar("M")


@dataclass(frozen=True, slots=True)
class PassState:
    running: bool = False
    pending: bool = False
    closing: bool = False


def on_reply(state: PassState) -> tuple[PassState, bool]:
    """An agent reply completed: (next state, whether to start a pass now)."""
    if state.closing:
        return state, False
    if state.running:
        return replace(state, pending=True), False
    return replace(state, running=True), True


def on_pass_done(state: PassState) -> tuple[PassState, bool]:
    """The running pass ended (saved, dropped or failed): start the pending one, if any."""
    if state.pending and not state.closing:
        return replace(state, pending=False), True
    return replace(state, running=False, pending=False), False


def on_closing(state: PassState) -> PassState:
    """The call is ending: no more passes start; a running one is left to end."""
    return replace(state, closing=True, pending=False)


def running_pass_wait(save_timeout: float, model_timeout: float) -> float:
    """Seconds the save waits for a running pass: half of what the save has beyond one model
    call, so the final pass keeps its model call's whole timeout plus the other half for its
    reads and write (configuration keeps the save timeout above the model's); never negative."""
    return max(0.0, save_timeout - model_timeout) / 2


def uncovered(heard: Sequence[M], covered: int) -> list[M]:
    """What no saved pass covered yet: the heard messages after the first `covered`."""
    return list(heard[covered:])


def final_part(heard: Sequence[M], covered: int, exchange: int = 2) -> list[M]:
    """What the final pass reads: the rest of the call, or, when passes covered all of it, the
    last exchange (so the call record still gets its summary); empty when nothing was heard."""
    rest = uncovered(heard, covered)
    return rest if rest else list(heard[-exchange:])
