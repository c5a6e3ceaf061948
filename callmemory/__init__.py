"""Caller memory for any LiveKit agent: `CallerMemory(...).attach(ctx, session, agent)`.

Of an interrupted reply only what provably finished playing is saved (replies that played to
the end, and what the caller said, are saved whole, whatever the TTS):

- a streaming TTS with word timestamps: the words whose audio ended before the cut;
- `measurable(tts)` of any other TTS (`transcript.sentences`): the sentences whose audio ended
  before the cut, including one that ended in the pause before the next sentence's audio;
- a plain non-streaming TTS (livekit's own sentence adapter): the sentences whose audio ended
  before the cut and whose next sentence's audio had already arrived (its start is the only
  end livekit marks), so a sentence that ended while the next was still being synthesized is
  lost, with everything after it;
- a streaming TTS without word timestamps, not wrapped: nothing (its audio carries no timing).

docs/voice-call.md#the-heard-transcript has the rule.

Each public name is imported on first use (`_HOMES`), so `callmemory.environment` and
`callmemory.config` load without livekit (the CLI's commands that run no call); the voice side
(`callmemory.attach`) loads with the first name that needs it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# first, before our other packages load: one line per top-level name another module shadows
import callmemory.installed_names  # noqa: F401  (its import runs the check)

# isort: split
# eager: importing the submodule `callmemory.prewarm` would otherwise bind its name here
from callmemory.prewarm import prewarm

if TYPE_CHECKING:
    from callmemory.attach import PHONE_CALLERS, CallerMemory
    from callmemory.caller_search import memory_search
    from callmemory.config import CallConfig
    from callmemory.definition import AgentDefinition, DefinitionError, define_agent
    from callmemory.documents import search_docs
    from callmemory.text import TextMemory
    from chat import ReservedToolName, ToolContext
    from chat import bound_context as tool_context
    from lifecycle.call import MemoryCall, SessionAlreadyStarted
    from lifecycle.opening import ConnectOptions
    from memory.settings import CodeDefaults
    from transcript.sentences import measurable

_HOMES = {
    "PHONE_CALLERS": ("callmemory.attach", "PHONE_CALLERS"),
    "CallerMemory": ("callmemory.attach", "CallerMemory"),
    "CallConfig": ("callmemory.config", "CallConfig"),
    "AgentDefinition": ("callmemory.definition", "AgentDefinition"),
    "DefinitionError": ("callmemory.definition", "DefinitionError"),
    "define_agent": ("callmemory.definition", "define_agent"),
    "search_docs": ("callmemory.documents", "search_docs"),
    "memory_search": ("callmemory.caller_search", "memory_search"),
    "TextMemory": ("callmemory.text", "TextMemory"),
    "ReservedToolName": ("chat", "ReservedToolName"),
    "ToolContext": ("chat", "ToolContext"),
    "tool_context": ("chat", "bound_context"),
    "MemoryCall": ("lifecycle.call", "MemoryCall"),
    "SessionAlreadyStarted": ("lifecycle.call", "SessionAlreadyStarted"),
    "ConnectOptions": ("lifecycle.opening", "ConnectOptions"),
    "CodeDefaults": ("memory.settings", "CodeDefaults"),
    "measurable": ("transcript.sentences", "measurable"),
}

__all__ = [
    "PHONE_CALLERS",
    "AgentDefinition",
    "CallConfig",
    "CallerMemory",
    "CodeDefaults",
    "ConnectOptions",
    "DefinitionError",
    "MemoryCall",
    "ReservedToolName",
    "SessionAlreadyStarted",
    "TextMemory",
    "ToolContext",
    "define_agent",
    "measurable",
    "memory_search",
    "prewarm",
    "search_docs",
    "tool_context",
]


def __getattr__(name: str) -> Any:
    """Import a public name's home on first use and keep the name here."""
    if name not in _HOMES:
        raise AttributeError(f"module 'callmemory' has no attribute {name!r}")
    module, attribute = _HOMES[name]
    value = getattr(importlib.import_module(module), attribute)
    globals()[name] = value
    return value
