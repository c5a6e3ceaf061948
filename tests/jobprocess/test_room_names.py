"""Room names named after the caller: their numbers never reach the logs or the spans.

LiveKit's individual SIP dispatch rule (docs/deployment.md) names each call's room
`<roomPrefix>_<caller's number>_<random>`. The plain rule (`infra.redaction.mask_numbers`), the
handler filter that applies it to every record's room fields (`infra.logs.ContentScrubber`), and
a real job process (livekit's PROCESS executor, `testkit.worker_process`) in such a room.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from infra.logs import REDACTED, ContentScrubber
from infra.redaction import NUMBER_MASK, mask_numbers
from testkit.model_server import ModelServer
from testkit.otlp_collector import otlp_collector, span_names
from testkit.scripted_call import NUMBER
from testkit.worker_process import worker_process
from tests.jobprocess.test_job_logs import CALL_EVENTS, FACT, SUMMARY, assert_private, one_call

SUFFIX = "Xq7Hk2LmP9aB"
ROOM = f"call-_{NUMBER}_{SUFFIX}"
"""An individual-rule room of the scripted caller (`roomPrefix` "call-")."""
MASKED = f"call-_{NUMBER_MASK}_{SUFFIX}"


@pytest.mark.parametrize(
    ("name", "masked"),
    [
        (ROOM, MASKED),
        ("_+15105550100_aB3dE5fG7hJ9", f"_{NUMBER_MASK}_aB3dE5fG7hJ9"),  # no prefix
        ("accounts-_34600111222_x1", f"accounts-_{NUMBER_MASK}_x1"),  # a provider's, no +
        ("call-_0034600111222_Ab", f"call-_{NUMBER_MASK}_Ab"),  # international prefix 00
        ("number-+1 (510) 555-0100", f"number-{NUMBER_MASK}"),  # a tel URI's separators
        ("call+15105550100", f"call{NUMBER_MASK}"),  # a + starts a number after a letter too
        (f"x_+{'1' * 15}_y", f"x_{NUMBER_MASK}_y"),  # E.164's most: 15 digits
        ("room-20261207", f"room-{NUMBER_MASK}"),  # a standalone 8-digit stamp: masked
    ],
)
def test_numbers_in_room_names_are_masked_and_the_rest_kept(name: str, masked: str) -> None:
    assert mask_numbers(name) == masked


@pytest.mark.parametrize(
    "name",
    [
        "call-7",
        "test-5e01234567abcdef",  # a browser test room (`worker.dispatcher.new_room_name`)
        "test-1234567890123456",  # ... whose 16 hex digits all came out decimal
        "standup-2026",  # a year
        "call-_123456_x",  # 6 digits: one short of a number
        f"x_+{'1' * 16}_y",  # 16 digits: past E.164's most
        "RM_a1234567b",  # digits inside a token
        "x_+12_y",
        "",
    ],
)
def test_names_without_a_number_are_unchanged(name: str) -> None:
    assert mask_numbers(name) == name


def test_every_room_field_of_a_record_is_masked_and_nothing_else() -> None:
    job = {"id": "AJ_1", "room": {"sid": "RM_1", "name": ROOM}, "note": NUMBER}
    record = logging.makeLogRecord(
        {
            "msg": "received job request",
            "room": ROOM,
            "room_id": f"RM_{ROOM}",
            "room_name": ROOM,
            "human_agent_room_name": ROOM,
            "job": job,
            "lk.pii.room_name": ROOM,
            "job_id": "job-1",
            "count": 12345678,
        }
    )
    assert ContentScrubber().filter(record)
    fields = vars(record)
    assert (fields["room"], fields["room_name"], fields["human_agent_room_name"]) == (MASKED,) * 3
    assert fields["room_id"] == f"RM_{MASKED}" and fields["lk.pii.room_name"] == REDACTED
    assert fields["job"] == {"id": "AJ_1", "room": {"sid": "RM_1", "name": MASKED}, "note": NUMBER}
    assert job["room"] == {"sid": "RM_1", "name": ROOM}  # the caller's object is left alone
    assert (fields["job_id"], fields["count"], fields["msg"]) == (
        "job-1",
        12345678,
        "received job request",
    )


async def test_a_call_in_a_room_named_after_its_caller_logs_and_traces_no_number(
    worker_env: dict[str, str], model_server: ModelServer, tmp_path: Path
) -> None:
    model_server.answer([{"op": "add", "handle": None, "content": FACT}], SUMMARY)
    async with otlp_collector() as (endpoint, received):
        env = {**worker_env, "OTEL_EXPORTER_OTLP_ENDPOINT": endpoint}
        async with worker_process("start", env, room=ROOM, job_id="job-r1", cwd=tmp_path) as w:
            await one_call(w)
            spans = span_names(received)
    events = [r for r in w.job_records() if str(r["message"]).startswith("call.")]
    assert [r["message"] for r in events] == CALL_EVENTS
    rooms = {r["room"] for r in w.records() if "room" in r}
    assert rooms == {MASKED}  # ours and livekit's: one room, still told apart by its suffix
    assert {r["room_id"] for r in w.records() if "room_id" in r} == {f"RM_{MASKED}"}
    assert_private(w.output)  # no line carries the number, in any of its forms
    assert sorted(spans) == ["memory.recall", "memory.save"]
    assert not any(NUMBER.lstrip("+").encode() in body for body in received)


async def test_under_dev_the_console_lines_name_the_masked_room(
    worker_env: dict[str, str], model_server: ModelServer, tmp_path: Path
) -> None:
    model_server.answer([], SUMMARY)
    async with worker_process("dev", worker_env, room=ROOM, job_id="job-r2", cwd=tmp_path) as w:
        await one_call(w)
    for event in CALL_EVENTS:
        [line] = w.lines_with(f" {event} ")
        assert f'"room": "{MASKED}"' in line
    assert_private(w.output)
