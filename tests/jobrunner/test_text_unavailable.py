"""A LiveKit text session whose memory settings cannot be read (the database unreachable), under
livekit's job runner (THREAD executor, mock room): the turn is answered, and memory is not
silently left out. The sender's client gets one `memory.error` packet on the data channel, and
the model, calling a memory tool, reads a tool error saying memory is unavailable."""

from __future__ import annotations

import json
import socket

import pytest
from livekit import rtc
from livekit.agents import llm

from callmemory.text import ERROR_TOPIC
from memory.settings import CodeDefaults
from testkit.job_runner import tool_call
from testkit.mock_room import MockRoom
from tests.jobrunner.test_text_session import TextSide, customer, text_desk, turn


def closed_port() -> int:
    with socket.socket() as s:  # bound, never listening, closed: nothing answers there
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def errors(request: llm.ChatContext) -> list[tuple[str, bool]]:
    outputs = [i for i in request.items if isinstance(i, llm.FunctionCallOutput)]
    return [(i.output, i.is_error) for i in outputs]


async def test_unreadable_settings_tell_the_client_and_the_model(
    job_env: None, room: MockRoom, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DATABASE_URL", f"postgresql://127.0.0.1:{closed_port()}/memory")
    side = TextSide(room, [tool_call("memory_read"), "I cannot look that up right now."])
    who = customer()
    room.join(who)
    async with text_desk(side, CodeDefaults(read=True, save=True, identity_key="customerId")):
        await turn(room, side, who, "What do you know about me?", requests=2)
        room.leave(who, rtc.DisconnectReason.CLIENT_INITIATED)
    assert side.text is not None and side.text.binding.reason == "settings_unavailable"
    fake = side.llm
    assert fake is not None and len(fake.calls) == 2  # the turn was answered
    assert fake.tools[0] == ["memory_read", "memory_save"]  # offered, to say why they fail
    [(output, is_error)] = errors(fake.calls[1].chat_ctx)
    assert is_error and json.loads(output)["error"] == "memory_unavailable"

    packets = room.room.local_participant.publish_data.call_args_list
    [notice] = [c for c in packets if c.kwargs.get("topic") == ERROR_TOPIC]
    assert notice.kwargs["destination_identities"] == [who.identity]  # the sender only
    assert notice.kwargs["reliable"] is True
    body = json.loads(notice.args[0])
    assert (body["code"], body["reason"]) == ("memory_unavailable", "settings_unavailable")
    assert body["type"] == ERROR_TOPIC and "crm/person_42" not in notice.args[0].decode()
