"""POST /api/voice/calls: an outbound dialing job, dispatched with server-owned metadata."""

from __future__ import annotations

import json
from typing import Any

import pytest
import structlog

from lifecycle.identity import resolve_identity
from sip.job_metadata import outbound_plan, parse_job_metadata
from tests.livekit_server import OUTBOUND_TRUNK_ID, LiveKitServer
from tests.rooms.conftest import auth
from tests.web_clients import Client, MakeClient
from worker.voice_settings import VoiceSettings

PATH = "/api/voice/calls"
NUMBER = "+34600111222"
DISPATCH = "AgentDispatchService/CreateDispatch"


async def _post(client: Client, body: Any, key: str = "operator") -> tuple[int, Any]:
    response = await client.post(PATH, json=body, headers=auth(key))
    return response.status, await response.json()


class TestStartCall:
    async def test_dispatches_a_dialing_job(self, client: Client, livekit: LiveKitServer) -> None:
        """The agent is dispatched into a new room with the number and default trunk to dial."""
        with structlog.testing.capture_logs() as logs:
            status, body = await _post(client, {"agentId": "support", "phoneNumber": NUMBER})
        assert status == 202, body
        [dispatch] = livekit.calls(DISPATCH)
        assert (dispatch.agent_name, dispatch.room) == ("support", body["roomName"])
        assert body["trunkId"] == OUTBOUND_TRUNK_ID
        plan = outbound_plan(dispatch.metadata)
        assert plan is not None
        assert (plan.number, plan.trunk_id) == (NUMBER, OUTBOUND_TRUNK_ID)
        assert livekit.calls("SIP/CreateSIPParticipant") == []  # the job dials, not the web
        assert NUMBER not in repr(logs) and NUMBER not in json.dumps(body)

    async def test_the_job_resolves_the_dialed_number(
        self, client: Client, livekit: LiveKitServer
    ) -> None:
        """Before anyone answers, the job's identity is already the number it will dial."""
        await _post(client, {"agentId": "support", "phoneNumber": NUMBER})
        [dispatch] = livekit.calls(DISPATCH)
        identity = resolve_identity("phoneNumber", None, parse_job_metadata(dispatch.metadata))
        assert (identity.user_id, identity.source) == (NUMBER, "dialed")

    async def test_explicit_trunk_wins(self, client: Client, livekit: LiveKitServer) -> None:
        status, body = await _post(
            client, {"agentId": "support", "phoneNumber": NUMBER, "trunkId": "ST_other"}
        )
        assert (status, body["trunkId"]) == (202, "ST_other")
        plan = outbound_plan(livekit.calls(DISPATCH)[0].metadata)
        assert plan is not None and plan.trunk_id == "ST_other"

    async def test_no_trunk_anywhere_is_a_400(
        self, make_client: MakeClient, voice: VoiceSettings, livekit: LiveKitServer
    ) -> None:
        settings = VoiceSettings(
            url=voice.url,
            api_key=voice.api_key,
            api_secret=voice.api_secret,
            public_url=voice.public_url,
        )
        client = await make_client(settings=settings)
        status, body = await _post(client, {"agentId": "support", "phoneNumber": NUMBER})
        assert (status, body["error"]["field"]) == (400, "trunkId")
        assert "SIP_OUTBOUND_TRUNK_ID" in body["error"]["message"]
        assert livekit.recorded == []

    @pytest.mark.parametrize(
        ("body", "status", "field"),
        [
            ({"agentId": "support", "phoneNumber": "+34 600 111 222"}, 400, "phoneNumber"),
            ({"agentId": "support", "phoneNumber": 34600111222}, 400, "phoneNumber"),
            ({"agentId": "support"}, 400, "phoneNumber"),
            ({"agentId": "support", "phoneNumber": NUMBER, "trunkId": "ST x"}, 400, "trunkId"),
            ({"agentId": "ghost", "phoneNumber": NUMBER}, 404, "agentId"),
        ],
    )
    async def test_refusals(
        self,
        client: Client,
        livekit: LiveKitServer,
        body: dict[str, Any],
        status: int,
        field: str,
    ) -> None:
        got, answer = await _post(client, body)
        assert (got, answer["error"]["field"]) == (status, field)
        assert NUMBER not in json.dumps(answer)
        assert livekit.recorded == []

    @pytest.mark.parametrize(("key", "status"), [("rooms-only", 403), ("operator", 202)])
    async def test_needs_the_voice_calls_scope(self, client: Client, key: str, status: int) -> None:
        got, _ = await _post(client, {"agentId": "support", "phoneNumber": NUMBER}, key=key)
        assert got == status
