"""A call's save says where it came from: channel `voice`, the job as call and writer, the
heard turns its evidence was found in (counted in the call, a final turn pass's part too)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from lifecycle.outcome import Outcome
from lifecycle.saving import CallScope, FinalPass, save_heard
from memory.api import Memory
from testkit.model_server import ModelServer
from tests.memory.helpers import add_op
from transcript.models import Message

T0 = datetime(2026, 12, 3, 9, 0, tzinfo=UTC)
SCOPE = CallScope("support", "+34 600 111 222", None, T0, "AJ_job_1")
HEARD = [
    Message(role="assistant", content="Hello, how can I help?"),
    Message(role="user", content="Send everything by email."),
    Message(role="assistant", content="Noted."),
    Message(role="user", content="And my dog is called Rex."),
]


async def _saved(memory: Memory, final: FinalPass | None) -> None:
    report = await save_heard(
        memory,
        SCOPE,
        HEARD,
        ended_at=T0 + timedelta(minutes=2),
        outcome=Outcome.CALLER_HUNG_UP,
        final=final,
    )
    assert report.status == "saved", report


async def test_a_calls_save_is_from_voice_by_its_job(
    memory: Memory, model_server: ModelServer
) -> None:
    model_server.answer([{**add_op("Prefers email."), "evidence": "by email"}])
    await _saved(memory, None)
    recall = await memory.recall("support", SCOPE.user_id)
    assert recall.data is not None
    (fact,) = recall.data.facts
    assert (fact.source.channel, fact.source.call_id, fact.source.writer.job) == (
        "voice",
        "AJ_job_1",
        "AJ_job_1",
    )
    assert fact.source.turns == (1,) and fact.source.evidence == "by email"
    assert recall.data.calls[0].source.channel == "voice"


async def test_a_final_turn_pass_counts_turns_in_the_call(
    memory: Memory, model_server: ModelServer
) -> None:
    """The final pass reads only what no pass covered; its evidence's turn is the call's."""
    model_server.answer([{**add_op("Has a dog, Rex."), "evidence": "my dog is called Rex"}])
    await _saved(memory, FinalPass(covered=2, turn=2))
    recall = await memory.recall("support", SCOPE.user_id)
    assert recall.data is not None
    assert recall.data.facts[0].source.turns == (3,)
