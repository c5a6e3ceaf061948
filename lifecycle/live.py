"""The room's data channel as a `memory.ops` listener: each event, while the room is connected.

The event is published reliably on the topic `memory.ops` (`memory.ops.TOPIC`) as UTF-8
JSON, the same JSON the listeners and the ops log get, so the browser on the call hears what
memory learned. A room that is not connected (the call ended) is skipped; a failed publish is
the listener's failure (`memory.ops` logs its type and the save goes on).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from memory.contract import strict_json
from memory.ops import TOPIC, OpsEvent


class DataRoom(Protocol):
    """The part of `rtc.Room` the publisher uses."""

    @property
    def local_participant(self) -> Any: ...

    def isconnected(self) -> bool: ...


def payload(event: OpsEvent) -> bytes:
    """The event as UTF-8 JSON (a lone surrogate a model wrote as its `\\u` escape)."""
    return strict_json.utf8_json(event, separators=(",", ":")).encode("utf-8")


def data_channel(room: DataRoom) -> Callable[[OpsEvent], Awaitable[None]]:
    """A listener publishing each event to `room` on the `memory.ops` topic."""

    async def publish(event: OpsEvent) -> None:
        if not room.isconnected():
            return
        await room.local_participant.publish_data(payload(event), reliable=True, topic=TOPIC)

    return publish
