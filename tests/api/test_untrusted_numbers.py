"""Numbers a client writes as text (query parameters, `Last-Event-ID`, JSON bodies) are read by
one parser each: anything that is not a plain decimal in range is the 400 naming the field and
the range, never a 500 (`int()` refuses over 4,300 digits and accepts digits of other scripts
that `str.isdigit` lets through)."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memory.contract import InvalidRequest, strict_json
from tests.api.conftest import auth, raw_exchange
from tests.web_clients import Client
from worker.http.server.integers import integer_in

HUGE = "9" * 100_000
LONG = "9" * 5_000  # past int()'s 4,300 digits, within a request line's 8,190 bytes
# text `str.isdigit` accepts and `int()` refuses, or `int()` accepts and a parameter must not
ODD = ["\u00b2", "\u0663", "+5", " 5", "5 ", "5_0", "1e3", "0x10", "-0", "", "\uff15", LONG]
PARAMETERS = [
    ("/api/memory/ops?agentId=support&after={}", "after"),
    ("/api/memory/ops?agentId=support&limit={}", "limit"),
    ("/api/memory/ops/stream?agentId=support&after={}", "after"),
    ("/api/memory/activity?limit={}", "limit"),
    ("/api/chat/sessions/support?limit={}", "limit"),
]


@pytest.mark.parametrize(("path", "field"), PARAMETERS)
async def test_odd_integers_in_the_query_are_400s_naming_the_parameter(
    client: Client, path: str, field: str
) -> None:
    for value in ODD:
        response = await client.get(path.format(value), headers=auth())
        answer = await response.json()
        assert response.status == 400, (value[:20], answer)
        error = answer["error"]
        assert (error["code"], error["field"]) == ("memory_invalid_request", field), value[:20]
        assert "must be an integer from" in error["message"]


async def test_a_cursor_of_100000_digits_in_last_event_id_is_a_400(served_port: int) -> None:
    """The reported case, through the production runner (its header limit lets it in)."""
    head = (
        "GET /api/memory/ops/stream?agentId=support HTTP/1.1\r\nHost: x\r\n"
        f"Authorization: {auth()['Authorization']}\r\nLast-Event-ID: {HUGE}\r\n"
        "Connection: close\r\n\r\n"
    )
    answer = await raw_exchange(served_port, head.encode())
    assert answer.startswith(b"HTTP/1.1 400 "), answer[:80]
    assert b'"field": "Last-Event-ID"' in answer and b"must be an integer from 0 to" in answer


async def test_numbers_at_the_limits_are_read(client: Client) -> None:
    cursor = str(2**63 - 1)
    ok = await client.get(
        f"/api/memory/ops?agentId=support&after={cursor}&limit=500", headers=auth()
    )
    assert ok.status == 200
    past = await client.get(f"/api/memory/ops?agentId=support&after={2**63}", headers=auth())
    assert past.status == 400
    zeros = await client.get(f"/api/memory/activity?limit={'0' * 2}1", headers=auth())
    assert zeros.status == 200  # leading zeros within the bound's width are still a number


@given(st.text(max_size=30) | st.from_regex(r"\A[0-9]{0,25}\Z"))
@settings(max_examples=400, deadline=None)
def test_the_parser_answers_an_integer_in_range_or_the_400(value: str) -> None:
    try:
        number = integer_in(value, "limit", 1, 500)
    except InvalidRequest as refused:
        assert refused.field == "limit" and "from 1 to 500" in refused.message
        return
    assert 1 <= number <= 500 and value.isascii() and value.isdigit() and int(value) == number


NUMBER = r"\A-?(0|[1-9][0-9]{0,6000})(\.[0-9]{1,20})?([eE][+-]?[0-9]{1,5})?\Z"


@given(st.from_regex(NUMBER))
@settings(max_examples=200, deadline=None)
def test_strict_json_reads_a_number_or_refuses_it_by_path(number: str) -> None:
    try:
        value: Any = strict_json.loads('{"n": ' + number + "}")
    except strict_json.JsonRejected as rejected:
        assert rejected.path == "n" and "digits" in rejected.rule
        return
    assert isinstance(value["n"], int | float) and math.isfinite(value["n"])
