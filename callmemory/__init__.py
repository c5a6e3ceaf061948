"""Caller memory for any LiveKit agent: `CallerMemory(...).attach(ctx, session, agent)`."""

from callmemory.attach import CallerMemory
from callmemory.config import CallConfig
from lifecycle.call import MemoryCall, SessionAlreadyStarted
from memory.settings import CodeDefaults

__all__ = ["CallConfig", "CallerMemory", "CodeDefaults", "MemoryCall", "SessionAlreadyStarted"]
