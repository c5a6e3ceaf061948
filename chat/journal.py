"""A text turn's journal: what a turn on a session keeps as it goes, so that a tool call that
acted is never lost and never run twice.

After each call that acts (an agent's own tool, a memory save: `journalled`) the turn so far is
kept on its session (`chat.turn_record.keep_progress`), with the digest of the request it
answers. A turn that then fails leaves it there. The next turn on the session finds it:
- the same request again (a client's retry): the turn goes on from the kept progress, so every
  call that ran is fed back as it ran and never run again; a call of the last step with no
  result kept may have run, so the model reads `outcome_unknown` for it (`settled`) and it is
  not run again. A progress that holds the model's whole answer (its record came too late) is
  answered as it is, without asking the model again.
- another request: the kept turn is recorded first as a cut turn (`cut_record`: its calls and
  results, without an answer the client never saw), so the model still sees what ran.
A turn with no session has nowhere to keep anything: `CallNote` only notes that a call acted,
so a failure after it can tell the client not to retry.

Everything here but `SessionJournal` is a pure function over plain values.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol

from chat.memory_tools import MEMORY_SAVE
from chat.progress import progress_json, progress_of, run_json, run_of
from chat.session_claim import Claim
from chat.toolbox import Tool
from chat.turn_record import TurnRecord, keep_progress
from chat.turn_result import Message, ToolRun, TurnResult
from infra.deadline import Deadline, Late, within
from memory.contract import MemoryFailure, Unavailable
from memory.store import Queryable

UNKNOWN: Final = "outcome_unknown"
UNKNOWN_OUTPUT: Final = json.dumps(
    {
        "error": UNKNOWN,
        "message": "this call may have run before the turn was interrupted; its result was "
        "lost. Do not call it again unless the person asks to.",
    }
)


class Journal(Protocol):
    async def kept(self, result: TurnResult) -> None:
        """A call that acts has run: `result` is the turn so far."""
        ...


class OutcomeUnknown(Unavailable):
    """A call that acts ran and the turn could not keep it: a retry must not run it again
    blindly (answered with `x-should-retry: false`)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)


class ActedThenFailed(Exception):
    """A turn with nowhere to keep its progress failed after a call that acts ran: its
    failure (`cause`) stands, and a retry must not run that call again blindly (answered with
    `x-should-retry: false`)."""

    def __init__(self, cause: Exception) -> None:
        super().__init__(str(cause))
        self.cause = cause


def request_digest(new: Sequence[Message], options: dict[str, Any], client: Sequence[Tool]) -> str:
    """What identifies a turn's request on its session: the new messages, the model options
    and the client's tools."""
    offered = [[t.name, t.description, t.parameters] for t in client]
    text = json.dumps(
        {"new": list(new), "options": options, "clientTools": offered},
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def journalled(tool: Tool | None) -> bool:
    """Whether a call of `tool` acts, so the turn keeps its progress once it ran: an agent's
    own tool and a memory save do; reading memory or documents does not."""
    if tool is None:
        return False
    return tool.kind == "agent" or (tool.kind == "memory" and tool.name == MEMORY_SAVE)


@dataclass(frozen=True, slots=True)
class KeptTurn:
    """A turn not yet recorded, as its session keeps it."""

    digest: str
    new: list[Message]
    user_message: str
    result: TurnResult
    complete: bool = False  # the model answered: only the record is missing


def kept_json(kept: KeptTurn) -> dict[str, Any]:
    return {
        "digest": kept.digest,
        "new": kept.new,
        "userMessage": kept.user_message,
        "complete": kept.complete,
        "turn": progress_json(kept.result),
    }


def kept_of(value: dict[str, Any] | None) -> KeptTurn | None:
    """The kept turn in either form: the journal's (`kept_json`), or a late record's (the
    record's own values, `chat.turn_record`: a whole answer)."""
    if value is None:
        return None
    if "messages" in value:
        return _recorded(value)
    return KeptTurn(
        str(value["digest"]),
        list(value["new"]),
        str(value["userMessage"]),
        progress_of(value["turn"]),
        bool(value["complete"]),
    )


def _recorded(value: dict[str, Any]) -> KeptTurn:
    """A record that reached the database too late, as a whole kept turn (a `conversation`
    keeps no messages: its turn is answered again without them, as it would be recorded)."""
    messages, new = list(value["messages"]), int(value["newCount"])
    result = TurnResult(
        reply=str(value["reply"]),
        added=messages[new:],
        prompt_tokens=int(value["promptTokens"]),
        completion_tokens=int(value["completionTokens"]),
        duration_ms=float(value["durationMs"]),
        run=[run_of(r) for r in value["run"]],
        finish_reason=str(value["finishReason"]),
    )
    return KeptTurn(str(value["digest"]), messages[:new], str(value["userMessage"]), result, True)


def settled(result: TurnResult) -> TurnResult:
    """The turn so far with each call of its last step that has no result (a client's call
    aside) answered `outcome_unknown`: it may have run, and it is never run again."""
    steps = [m for m in result.added if m.get("role") == "assistant" and m.get("tool_calls")]
    if not steps:
        return result
    answered = {m.get("tool_call_id") for m in result.added if m.get("role") == "tool"}
    answered |= {c.id for c in result.client_calls}
    missing = [c for c in steps[-1]["tool_calls"] if c["id"] not in answered]
    added, run = list(result.added), list(result.run)
    for call in missing:
        function = call["function"]
        added.append({"role": "tool", "tool_call_id": call["id"], "content": UNKNOWN_OUTPUT})
        run.append(
            ToolRun(call["id"], function["name"], function["arguments"], UNKNOWN_OUTPUT, UNKNOWN, 0)
        )
    errors = [*result.tool_errors, *(UNKNOWN for _ in missing)]
    return dataclasses.replace(result, added=added, run=run, tool_errors=errors)


def without_cut(new: list[Message], cut: list[Message]) -> list[Message]:
    """The new messages without a leading repeat of the cut turn's (a client that sends the
    message whose turn failed again, ahead of its next one); all of them if that is all."""
    if cut and len(new) > len(cut) and new[: len(cut)] == cut:
        return new[len(cut) :]
    return new


def cut_record(kept: KeptTurn, keep_thread: bool) -> TurnRecord | None:
    """What the thread keeps of a turn that never reached its record: its calls and their
    results, without an answer its client never saw; None when no call of it ran."""
    result = settled(kept.result)
    if not any(run.error != UNKNOWN and run.result is not None for run in result.run):
        return None
    added = list(result.added)
    if added and added[-1].get("role") == "assistant" and not added[-1].get("tool_calls"):
        added.pop()  # the answer the client was never given
    return TurnRecord(
        [*kept.new, *added] if keep_thread else [],
        kept.user_message,
        "",
        result.prompt_tokens,
        result.completion_tokens,
        result.duration_ms,
        [run_json(r) for r in result.run],
        kept.digest,
    )


class SessionJournal:
    """Keeps the turn so far on its claimed session after each call that acts. The write is
    never cancelled (what it says happened); past `seconds` the turn stops with
    `OutcomeUnknown`, and the write still lands when the database answers."""

    def __init__(self, db: Queryable, held: Claim, turn: KeptTurn, seconds: float) -> None:
        self.db, self.held, self.turn, self.seconds = db, held, turn, seconds

    async def kept(self, result: TurnResult) -> None:
        value = kept_json(dataclasses.replace(self.turn, result=result))
        try:
            await within(
                Deadline.after(self.seconds),
                keep_progress(self.db, self.held, value),
                step="chat.progress",
                let_finish=True,
            )
        except (Late, MemoryFailure):
            raise OutcomeUnknown(
                "a tool ran and the turn could not keep it in time: send the same request"
                " again to go on from it (it will not run the tool again)"
            ) from None


class CallNote:
    """A turn with no session: notes that a call which acts ran."""

    def __init__(self) -> None:
        self.acted = False

    async def kept(self, result: TurnResult) -> None:
        self.acted = True
