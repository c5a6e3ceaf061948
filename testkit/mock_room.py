"""Driving livekit's own mock room from a test: who is in the room, who leaves and why.

A fake job (`simulate_job(..., fake_job=True)`) runs on `livekit.agents.ipc.mock_room`, an
autospec of `rtc.Room` that livekit builds once per process (`functools.cache`). Nothing in it
emits events: `room.on(event, handler)` only records the call. So a test

- puts participants in `room.remote_participants` (each an autospec of `rtc.RemoteParticipant`
  with a real identity, kind, state and attributes), where `wait_for_participant` and RoomIO
  look first;
- makes one leave by setting its `disconnect_reason`, removing it, and calling every handler
  still registered for `participant_disconnected` (registered minus removed with `room.off`),
  on the job's own event loop, as the real room would;
- says whether the room is connected (`isconnected()`): connected until `disconnect()`;
- writes on the `lk.chat` text stream topic as a participant (`send_text`): the handler
  RoomIO registered with `register_text_stream_handler` reads it, as in livekit's text mode.

`remote_participants` is keyed by identity, as `rtc.Room` keys it (RoomIO's text input finds
the sender by identity).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Any
from unittest.mock import create_autospec

from livekit import rtc
from livekit.agents.ipc.mock_room import create_mock_room

SIP = rtc.ParticipantKind.PARTICIPANT_KIND_SIP
STANDARD = rtc.ParticipantKind.PARTICIPANT_KIND_STANDARD


def participant(
    identity: str, kind: int, attributes: Mapping[str, str] | None = None
) -> rtc.RemoteParticipant:
    """A remote participant as livekit's mock room builds its own, with real values."""
    p: Any = create_autospec(rtc.RemoteParticipant, instance=True)
    p.identity = identity
    p.sid = f"PA_{identity}"
    p.name = identity
    p.kind = kind
    p.state = rtc.ParticipantState.PARTICIPANT_STATE_ACTIVE
    p.attributes = dict(attributes or {})
    p.metadata = ""
    p.disconnect_reason = rtc.DisconnectReason.UNKNOWN_REASON
    p.track_publications = {}
    return p  # type: ignore[no-any-return]


class MockRoom:
    """The process-wide mock room, emptied for one job."""

    def __init__(self) -> None:
        self.room: Any = create_mock_room()
        self.loop: asyncio.AbstractEventLoop | None = None
        """The job's event loop; the session factory sets it when the job builds its session."""
        self.reset()

    @classmethod
    def of_this_job(cls) -> MockRoom:
        """In a job process (one job each): its room as the job runner left it, emptied of
        livekit's default participant, on the running loop. Not reset: the handlers the job
        runner registered stay."""
        mock = cls.__new__(cls)
        mock.room = create_mock_room()
        mock.room.remote_participants = {}
        mock.loop = asyncio.get_running_loop()
        return mock

    def reset(self) -> None:
        """Empty the room and forget its handlers, for the next job."""
        self.room.reset_mock()
        self.room.remote_participants = {}
        self.room.isconnected.return_value = True
        self.loop = None

    def disconnect(self) -> None:
        """From now on the room says it is not connected (the call's room is gone)."""
        self.room.isconnected.return_value = False

    def join(self, who: rtc.RemoteParticipant) -> None:
        self.room.remote_participants[who.identity] = who

    def leave(self, who: rtc.RemoteParticipant, reason: int) -> None:
        """`who` disconnects with `reason`: the room's handlers run on the job's loop."""

        def disconnect() -> None:
            who.disconnect_reason = reason  # type: ignore[assignment,misc]
            self.room.remote_participants.pop(who.identity, None)
            for handler in self.handlers("participant_disconnected"):
                handler(who)

        self.call_in_job(disconnect)

    def handlers(self, event: str) -> list[Callable[..., Any]]:
        """Handlers registered for `event` with `room.on(event, handler)` and not removed."""
        added = [c.args[1] for c in self.room.on.call_args_list if _is(c.args, event)]
        removed = [c.args[1] for c in self.room.off.call_args_list if _is(c.args, event)]
        return [h for h in added if h not in removed]

    def send_text(self, who: rtc.RemoteParticipant, text: str, topic: str = "lk.chat") -> None:
        """`who` writes `text` on `topic`: the registered text stream handler gets it."""
        handlers = self.text_handlers(topic)
        assert handlers, f"no text stream handler for {topic}"
        reader = TextReader(text, topic)
        self.call_in_job(lambda: handlers[-1](reader, who.identity))

    def text_handlers(self, topic: str = "lk.chat") -> list[Callable[..., Any]]:
        """Handlers registered with `register_text_stream_handler(topic, handler)`, in order."""
        calls = self.room.register_text_stream_handler.call_args_list
        return [c.args[1] for c in calls if len(c.args) >= 2 and c.args[0] == topic]

    def call_in_job(self, fn: Callable[[], Any]) -> None:
        assert self.loop is not None, "the job has not built its session yet"
        self.loop.call_soon_threadsafe(fn)


class TextReader:
    """What a text stream handler reads: the whole text at once, and the stream's info."""

    def __init__(self, text: str, topic: str) -> None:
        self._text = text
        self.info = rtc.TextStreamInfo(
            stream_id="TS_test",
            mime_type="text/plain",
            topic=topic,
            timestamp=0,
            size=len(text.encode()),
            attributes={},
            attachments=[],
        )

    async def read_all(self) -> str:
        return self._text


def _is(args: tuple[Any, ...], event: str) -> bool:
    return len(args) >= 2 and args[0] == event
