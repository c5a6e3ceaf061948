"""The journal's rules over plain values (`chat.journal`): which calls keep the turn's progress,
what identifies a request, how a kept turn's unanswered calls are settled and how a turn that
never reached its record is kept as a cut turn."""

from __future__ import annotations

import json
from typing import Any

from chat.journal import (
    UNKNOWN,
    KeptTurn,
    cut_record,
    journalled,
    kept_json,
    kept_of,
    request_digest,
    settled,
    without_cut,
)
from chat.toolbox import Tool, ToolContext, client_tool
from chat.turn_result import ToolCall, ToolRun, TurnResult

HI = [{"role": "user", "content": "Order tea"}]


async def _run(_: ToolContext, __: str) -> str:
    return "ok"


def _tool(name: str, kind: Any) -> Tool:
    return Tool(name, "", {"type": "object"}, _run, kind=kind)


def _step(*ids: str) -> dict[str, Any]:
    function = {"name": "place_order", "arguments": "{}"}
    calls = [{"id": i, "type": "function", "function": function} for i in ids]
    return {"role": "assistant", "content": "", "tool_calls": calls}


def _ran(call_id: str) -> TurnResult:
    """A turn whose step called `a` and `b`, of which only `call_id` ran."""
    return TurnResult(
        added=[_step("a", "b"), {"role": "tool", "tool_call_id": call_id, "content": "ordered"}],
        run=[ToolRun(call_id, "place_order", "{}", "ordered", None, 3.0)],
        steps=1,
        tool_calls=["place_order"],
    )


def test_only_calls_that_act_are_journalled() -> None:
    assert journalled(_tool("place_order", "agent"))
    assert journalled(_tool("memory_save", "memory"))
    assert not journalled(_tool("memory_read", "memory"))
    assert not journalled(_tool("search_docs", "documents"))
    assert not journalled(client_tool("pick_colour", "", {"type": "object"}))
    assert not journalled(None)


def test_the_digest_names_the_request() -> None:
    one = request_digest(HI, {"temperature": 0.2}, ())
    assert one == request_digest([dict(HI[0])], {"temperature": 0.2}, ())
    assert one != request_digest(
        [{"role": "user", "content": "Order tee"}], {"temperature": 0.2}, ()
    )
    assert one != request_digest(HI, {"temperature": 0.3}, ())
    offered = (client_tool("pick_colour", "", {"type": "object"}),)
    assert one != request_digest(HI, {"temperature": 0.2}, offered)
    assert (
        len(request_digest([{"role": "user", "content": "\ud800"}], {}, ())) == 64
    )  # a lone surrogate


def test_a_call_with_no_kept_result_is_settled_as_unknown_and_never_run_again() -> None:
    found = settled(_ran("a"))
    assert [m.get("tool_call_id") for m in found.added[1:]] == ["a", "b"]
    assert json.loads(found.added[-1]["content"])["error"] == UNKNOWN
    assert [(r.id, r.error) for r in found.run] == [("a", None), ("b", UNKNOWN)]
    assert found.tool_errors == [UNKNOWN]
    assert settled(found) == found  # nothing left to settle
    whole = TurnResult(added=[{"role": "assistant", "content": "Hi"}])
    assert settled(whole) == whole


def test_a_clients_call_is_left_for_the_client() -> None:
    result = _ran("a")
    result.client_calls.append(ToolCall("b", "pick_colour", "{}"))
    assert [m.get("tool_call_id") for m in settled(result).added[1:]] == ["a"]


def test_a_cut_turn_keeps_what_ran_without_an_unseen_answer() -> None:
    result = settled(_ran("a"))
    result.added.append({"role": "assistant", "content": "Tea is on its way."})
    kept = KeptTurn("d" * 64, HI, "Order tea", result, complete=True)
    cut = cut_record(kept, keep_thread=True)
    assert cut is not None
    assert cut.reply == "" and cut.user_message == "Order tea" and cut.digest == "d" * 64
    assert cut.messages[0] == HI[0]
    assert [m["role"] for m in cut.messages] == ["user", "assistant", "tool", "tool"]
    assert [r["id"] for r in cut.run] == ["a", "b"]
    assert cut_record(kept, keep_thread=False).messages == []  # type: ignore[union-attr]


def test_a_turn_where_nothing_ran_is_not_kept() -> None:
    nothing = TurnResult(added=[_step("a")], steps=1)
    assert cut_record(KeptTurn("d", HI, "Order tea", nothing), keep_thread=True) is None


def test_a_kept_turn_round_trips() -> None:
    kept = KeptTurn("d" * 64, HI, "Order tea", settled(_ran("a")), complete=True)
    back = kept_of(json.loads(json.dumps(kept_json(kept))))
    assert back == kept
    assert kept_of(None) is None


def test_a_repeat_of_the_cut_turns_message_is_read_once() -> None:
    nxt = [{"role": "user", "content": "And?"}]
    assert without_cut([*HI, *nxt], HI) == nxt  # sent again ahead of the next one
    assert without_cut(HI, HI) == HI  # only that: it is the request itself
    assert without_cut(nxt, HI) == nxt
    assert without_cut(nxt, []) == nxt
