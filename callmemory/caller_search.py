"""`callmemory.memory_search()`: a ready LiveKit function tool searching the caller's memory.

Add it to an agent attached with `CallerMemory`, in one line::

    agent = Agent(instructions="...", tools=[memory_search()])

The tool searches the facts of the person on this call only: the agent and the caller are
the ones `CallerMemory.attach` resolved at room open (`register_call`), never a tool argument,
so the model cannot reach another person's memory. It answers only when the call's settings
snapshot lets memory be read (read on, a known caller); a save-only call, or a call without a
caller, gets "not available" and no fact. Each search (`Memory.search`, hybrid: by meaning
where embeddings are configured, else by text) runs within a deadline (`infra.deadline`):
past it the model is told at once that memory search is unavailable, and the work is
abandoned to the background. Each search leaves a read record (the job, channel `voice`,
route `memory_search`, the number of hits). On a LiveKit text session (`callmemory.text`)
each turn registers its own binding instead: the agent and the customer the turn's memory
tools act for, read records on channel `livekit-text`, and a tool error when the turn's
settings could not be read. Logs carry outcome codes, never the query nor what
was found.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import Any

import structlog
from livekit.agents import FunctionTool, ToolError, function_tool, get_job_context

from infra.deadline import Deadline, Late, within
from lifecycle.plan import MemoryPlan
from memory.api import Memory
from memory.config import ConfigError
from memory.search import SearchOutcome
from memory.store import Read

log = structlog.get_logger(__name__)

DEFAULT_SEARCH_K = 5
MAX_SEARCH_K = 50  # as `Memory.search`
DEFAULT_SEARCH_SECONDS = 2.0
"""How long one search may take, the query's embedding included."""
UNAVAILABLE = "Memory search is unavailable right now; answer without it and say so if needed."
NOT_AVAILABLE = "No memory of this caller can be searched on this call."
NO_MATCH = "Nothing remembered about this caller matches."
DESCRIPTION = (
    "Search what you remember about the caller (facts kept from earlier conversations) for"
    " what bears on their question. Call it when the caller refers to something from before"
    " that your instructions do not already say."
)


@dataclass(frozen=True, slots=True)
class CallSearch:
    """Whose memory the tool may search on one call: `user_id` None, nobody's."""

    memory: Memory
    agent_id: str
    user_id: str | None
    reader: str | None = None  # the job, as each search's read record names it
    channel: str = "voice"  # each search's read record: `livekit-text` on a text session
    refusal: str | None = None  # set: memory cannot be read now; each search is this tool error


_CALLS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, CallSearch] = (
    weakref.WeakKeyDictionary()
)
"""The call running on each event loop (livekit runs one job per loop)."""


def searchable(plan: MemoryPlan) -> str | None:
    """The caller whose memory a call may search: only with read on and a caller known."""
    return plan.user_id if plan.read else None


def register_call(memory: Memory, plan: MemoryPlan) -> None:
    """At attach: the tool on this loop searches `plan`'s caller (if readable) with `memory`;
    each search is recorded as a read by the running job."""
    register_search(CallSearch(memory, plan.agent_id, searchable(plan), _job_id()))


def register_search(call: CallSearch) -> None:
    """The tool on this loop searches as `call` says (a text session: each turn's binding)."""
    _CALLS[asyncio.get_running_loop()] = call


def _job_id() -> str | None:
    try:
        return get_job_context().job.id
    except RuntimeError:  # outside a livekit job
        return None


def forget_call(loop: asyncio.AbstractEventLoop) -> None:
    """At the job's end: the loop's call is gone; the tool answers "not available"."""
    _CALLS.pop(loop, None)


def render(found: SearchOutcome) -> str:
    """The facts found, best first, each with its score, as the model reads them."""
    lines = [f"[{hit.score:.2f}] {hit.text}" for hit in found.items if hit.text]
    return "\n".join(lines) if lines else NO_MATCH


def memory_search(
    *,
    k: int = DEFAULT_SEARCH_K,
    deadline_seconds: float = DEFAULT_SEARCH_SECONDS,
    name: str = "memory_search",
    description: str = DESCRIPTION,
) -> FunctionTool[[str], Coroutine[Any, Any, str]]:
    """A function tool searching the current caller's facts: at most `k` (1..50), best first,
    within `deadline_seconds` (more than 0); a bad value raises `ConfigError` naming it."""
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_SEARCH_K:
        raise ConfigError(f"k: must be an integer from 1 to {MAX_SEARCH_K}")
    if not deadline_seconds > 0:
        raise ConfigError("deadline_seconds: must be more than 0")

    async def find(call: CallSearch, user_id: str, query: str) -> str:
        result = await call.memory.search(call.agent_id, query, user_id, k, "hybrid")
        if result.error is not None:
            if result.error.code == "memory_invalid_request":
                raise ToolError(result.error.message)  # the model's query broke a rule
            log.warning("memory.search_tool_failed", error_code=result.error.code)
            return UNAVAILABLE
        assert result.data is not None
        hits = len(result.data.items)  # the read's record: who, the channel, counts only
        read = Read(
            call.agent_id, user_id, call.reader, call.channel, "memory_search", {"hits": hits}
        )
        await call.memory.note_read(read)
        return render(result.data)

    async def search(query: str) -> str:
        call = _CALLS.get(asyncio.get_running_loop())
        if call is not None and call.refusal is not None:
            raise ToolError(call.refusal)
        if call is None or call.user_id is None:
            return NOT_AVAILABLE
        try:
            work = find(call, call.user_id, query)
            return await within(Deadline.after(deadline_seconds), work, step="memory.search_tool")
        except Late:
            log.warning("memory.search_tool_late", seconds=deadline_seconds)
            return UNAVAILABLE

    search.__doc__ = f"""{description}

        Args:
            query: what to look for, in a few words
        """
    return function_tool(search, name=name, description=description)
