"""Caller memory for any LiveKit agent: `CallerMemory(...).attach(ctx, session, agent)`.

`measurable(tts)` wraps a TTS so the saved prefix of an interrupted reply can be proven from
playback (`transcript.sentences`); without it only replies that played to the end are saved.
"""

from callmemory.attach import PHONE_CALLERS, CallerMemory
from callmemory.config import CallConfig
from callmemory.documents import search_docs
from lifecycle.call import MemoryCall, SessionAlreadyStarted
from lifecycle.opening import ConnectOptions
from memory.settings import CodeDefaults
from transcript.sentences import measurable

__all__ = [
    "PHONE_CALLERS",
    "CallConfig",
    "CallerMemory",
    "CodeDefaults",
    "ConnectOptions",
    "MemoryCall",
    "SessionAlreadyStarted",
    "measurable",
    "search_docs",
]
