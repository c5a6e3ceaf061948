"""A turn's progress as plain JSON values and back: what a pending decision keeps so that the
continuation goes on where the turn stopped (its thread additions, counters, run detail, the
parked call and the step's calls after it), and what a session keeps of a turn not yet recorded
(`chat.journal`: the same, with no parked call, and the finish once the model answered).
Pure functions over plain values."""

from __future__ import annotations

from typing import Any, cast

from chat.held import DecisionKind, ordered
from chat.turn_result import Parked, ToolCall, ToolRun, TurnResult

Json = dict[str, Any]


def _call(call: ToolCall) -> Json:
    return {"id": call.id, "name": call.name, "arguments": call.arguments}


def _call_of(value: Json) -> ToolCall:
    return ToolCall(str(value["id"]), str(value["name"]), str(value["arguments"]))


def run_json(run: ToolRun) -> Json:
    return {
        "id": run.id,
        "name": run.name,
        "arguments": run.arguments,
        "result": run.result,
        "error": run.error,
        "durationMs": run.duration_ms,
        "decision": run.decision,
    }


def run_of(value: Json) -> ToolRun:
    return ToolRun(
        str(value["id"]),
        str(value["name"]),
        str(value["arguments"]),
        value.get("result"),
        value.get("error"),
        float(value.get("durationMs", 0.0)),
        cast(DecisionKind | None, value.get("decision")),
    )


def progress_json(result: TurnResult) -> Json:
    """The turn so far (parked on `result.parked`, if it is)."""
    parked = result.parked
    return {
        "reply": result.reply,
        "added": result.added,
        "promptTokens": result.prompt_tokens,
        "completionTokens": result.completion_tokens,
        "steps": result.steps,
        "toolCalls": result.tool_calls,
        "toolErrors": result.tool_errors,
        "durationMs": result.duration_ms,
        "clientCalls": [_call(c) for c in result.client_calls],
        "run": [run_json(r) for r in result.run],
        "finishReason": result.finish_reason,
        "parked": None
        if parked is None
        else {
            "call": _call(parked.call),
            "allowed": list(parked.allowed),
            "rest": [_call(c) for c in parked.rest],
        },
    }


def progress_of(value: Json) -> TurnResult:
    """The stored turn so far, to go on with (`parked`, if set, says which call waits)."""
    parked = value["parked"]
    return TurnResult(
        reply=value["reply"],
        added=list(value["added"]),
        prompt_tokens=int(value["promptTokens"]),
        completion_tokens=int(value["completionTokens"]),
        steps=int(value["steps"]),
        tool_calls=list(value["toolCalls"]),
        tool_errors=list(value["toolErrors"]),
        duration_ms=float(value["durationMs"]),
        client_calls=[_call_of(c) for c in value["clientCalls"]],
        run=[run_of(r) for r in value["run"]],
        finish_reason=str(value.get("finishReason", "stop")),
        parked=None
        if parked is None
        else Parked(
            _call_of(parked["call"]),
            ordered(parked["allowed"]),
            tuple(_call_of(c) for c in parked["rest"]),
        ),
    )
