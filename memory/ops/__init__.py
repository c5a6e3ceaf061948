"""Live memory: the `memory.ops` event of one write and the in-process listeners that get it."""

from memory.ops._event import TOPIC, OpsEvent, build_event, from_row
from memory.ops._listeners import Listener, Listeners

__all__ = [
    "TOPIC",
    "Listener",
    "Listeners",
    "OpsEvent",
    "build_event",
    "from_row",
]
