"""POST /api/voice/rooms over the real app, Postgres and livekit-api's client."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import jwt
import pytest
from livekit import api

from chat.identities import MAX_ENTRIES, MAX_NAME_CHARS, MAX_VALUE_CHARS
from lifecycle.identity import NoIdentity, resolve_identity
from sip.caller import Caller
from sip.job_metadata import parse_job_metadata
from tests.livekit_server import LiveKitServer, TwirpFailure
from tests.rooms.conftest import KEYS, PUBLIC_URL, auth
from tests.web_clients import Client, MakeClient

PATH = "/api/voice/rooms"
CREATE_ROOM = "RoomService/CreateRoom"
DISPATCH = "AgentDispatchService/CreateDispatch"


async def _post(client: Client, body: Any, key: str = "operator") -> tuple[int, Any]:
    raw = body if isinstance(body, str) else json.dumps(body, ensure_ascii=False)
    headers = auth(key) | {"Content-Type": "application/json"}
    response = await client.post(PATH, data=raw.encode("utf-8"), headers=headers)
    return response.status, await response.json()


def _dispatched(livekit: LiveKitServer) -> api.CreateAgentDispatchRequest:
    [dispatch] = livekit.calls(DISPATCH)
    assert isinstance(dispatch, api.CreateAgentDispatchRequest)
    return dispatch


class TestOpenRoom:
    async def test_room_dispatch_and_token(self, client: Client, livekit: LiveKitServer) -> None:
        """One room is created, the agent is dispatched into it, and the token fits that room."""
        status, body = await _post(client, {"agentId": "crm", "identities": {"email": "a@b.c"}})
        assert status == 201, body
        [room] = livekit.calls(CREATE_ROOM)
        dispatch = _dispatched(livekit)
        assert room.name == dispatch.room == body["roomName"]
        assert dispatch.agent_name == "crm"
        assert room.metadata == ""  # participants can read room metadata: no identities there
        assert body["url"] == PUBLIC_URL
        assert body["dispatchId"].startswith("AD_")

    async def test_token_joins_only_that_room_briefly(
        self, client: Client, livekit: LiveKitServer
    ) -> None:
        """The token is verified by livekit-api: one room, a join grant, no admin, ~10 minutes."""
        before = datetime.now(UTC)
        _, body = await _post(client, {"agentId": "crm"})
        token = body["token"]
        claims = api.TokenVerifier(livekit.api_key, livekit.api_secret).verify(token)
        assert claims.video is not None
        assert (claims.video.room_join, claims.video.room) == (True, body["roomName"])
        assert not (claims.video.room_admin or claims.video.room_create or claims.video.room_list)
        assert claims.room_config is None  # the browser cannot dispatch or configure agents
        assert claims.identity == body["participantIdentity"]
        assert claims.identity.startswith("browser-")
        assert claims.metadata == "" and not claims.attributes
        expires = datetime.fromisoformat(body["expiresAt"])
        assert timedelta(minutes=9) < expires - before <= timedelta(minutes=10, seconds=5)
        with pytest.raises(jwt.InvalidSignatureError):
            api.TokenVerifier(livekit.api_key, "another-secret-" * 3).verify(token)

    async def test_operator_is_never_the_identity(
        self, client: Client, livekit: LiveKitServer
    ) -> None:
        """Neither the API key's name nor the room name reaches the token or the metadata."""
        _, body = await _post(client, {"agentId": "crm"})
        dispatch = _dispatched(livekit)
        assert json.loads(dispatch.metadata) == {"identities": {}}
        assert "operator" not in body["participantIdentity"]
        assert KEYS["operator"][0] not in body["token"]
        metadata = parse_job_metadata(dispatch.metadata)
        for key in ("contact.email", "customerId", "operator", "roomName", "sessionId"):
            identity = resolve_identity(key, Caller(is_sip=False), metadata)
            assert (identity.user_id, identity.reason) == (None, NoIdentity.IDENTITY_MISSING)

    @pytest.mark.parametrize(
        "identities",
        [
            {"contact.email": "  Zoë@Example.com\t"},
            {"contact.email": "ü" * MAX_VALUE_CHARS, "n" * MAX_NAME_CHARS: "🎧"},
            {f"field{i}": f" v{i} " for i in range(MAX_ENTRIES - 1)} | {"contact.email": "x"},
        ],
    )
    async def test_identities_reach_the_worker_byte_for_byte(
        self, client: Client, livekit: LiveKitServer, identities: dict[str, str]
    ) -> None:
        """What the request sent is exactly what the worker's parser reads from the dispatch."""
        status, body = await _post(client, {"agentId": "crm", "identities": identities})
        assert status == 201, body
        metadata = parse_job_metadata(_dispatched(livekit).metadata)
        assert dict(metadata.identities) == identities
        identity = resolve_identity("contact.email", Caller(is_sip=False), metadata)
        assert identity.user_id == identities["contact.email"]
        assert body["memory"] == {"identityKey": "contact.email", "enabled": True, "reason": None}

    async def test_scalar_customer_id_joins_the_identities(
        self, client: Client, livekit: LiveKitServer
    ) -> None:
        body = {"agentId": "plain", "customerId": " c-1 ", "identities": {"customerId": " c-1 "}}
        status, answer = await _post(client, body)
        assert status == 201, answer
        assert json.loads(_dispatched(livekit).metadata) == {"identities": {"customerId": " c-1 "}}

    @pytest.mark.parametrize(
        ("agent", "identities", "memory"),
        [
            ("crm", {"email": "a@b.c"}, ("contact.email", False, "identity_missing")),
            ("crm", {"contact": "a@b.c"}, ("contact.email", False, "identity_missing")),
            ("plain", {"customerId": "c-1"}, (None, False, "no_binding")),
            ("support", {"customerId": "+34600111222"}, ("phoneNumber", False, "identity_missing")),
            ("support", {"phoneNumber": "+34600111222"}, ("phoneNumber", True, None)),
            ("crm", {"contact.email": "a@b.c"}, ("contact.email", True, None)),
        ],
    )
    async def test_memory_answer_follows_the_selected_identity(
        self,
        client: Client,
        livekit: LiveKitServer,
        agent: str,
        identities: dict[str, str],
        memory: tuple[str | None, bool, str],
    ) -> None:
        """The room always opens; memory is on only with the selected identity, else it says why."""
        status, body = await _post(client, {"agentId": agent, "identities": identities})
        assert status == 201, body
        assert (
            body["memory"]["identityKey"],
            body["memory"]["enabled"],
            body["memory"]["reason"],
        ) == memory
        assert len(livekit.calls(DISPATCH)) == 1


class TestRefusals:
    @pytest.mark.parametrize(
        ("body", "rule"),
        [
            ({"agentId": "crm", "identities": []}, "identities_not_object"),
            (
                {"agentId": "crm", "identities": {f"k{i}": "v" for i in range(MAX_ENTRIES + 1)}},
                "identities_too_many",
            ),
            ({"agentId": "crm", "identities": {"": "v"}}, "identity_name_empty"),
            (
                {"agentId": "crm", "identities": {"n" * (MAX_NAME_CHARS + 1): "v"}},
                "identity_name_too_long",
            ),
            ({"agentId": "crm", "identities": {"email": ""}}, "identity_value_empty"),
            (
                {"agentId": "crm", "identities": {"email": "x" * (MAX_VALUE_CHARS + 1)}},
                "identity_value_too_long",
            ),
            ({"agentId": "crm", "identities": {"customerId": 7}}, "identity_value_not_string"),
            (
                {"agentId": "crm", "customerId": "a", "identities": {"customerId": "b"}},
                "customer_id_conflict",
            ),
        ],
    )
    async def test_identity_rules_are_400s_naming_the_rule(
        self, client: Client, livekit: LiveKitServer, body: dict[str, Any], rule: str
    ) -> None:
        """Each broken rule answers 400 with its name, and nothing reaches LiveKit."""
        status, answer = await _post(client, body)
        assert status == 400
        assert answer["error"]["code"] == "invalid_identities"
        assert rule in answer["error"]["message"]
        assert livekit.recorded == []

    async def test_lone_surrogate_escape_is_refused(
        self, client: Client, livekit: LiveKitServer
    ) -> None:
        """A JSON escape that decodes to no Unicode character cannot become an identity: the
        body is refused as it is read, naming the value's path, before identities are checked."""
        status, answer = await _post(client, '{"agentId":"crm","identities":{"e":"\\ud800"}}')
        assert (status, answer["error"]["code"]) == (400, "memory_invalid_request")
        assert answer["error"]["field"] == "identities.e"
        assert livekit.recorded == []

    @pytest.mark.parametrize(
        ("body", "status", "code"),
        [
            ({"agentId": "nobody-here"}, 404, "agent_not_found"),
            ({}, 400, "memory_invalid_request"),
            ({"agentId": "crm", "userId": "u"}, 400, "memory_invalid_request"),
        ],
    )
    async def test_bad_bodies(
        self, client: Client, livekit: LiveKitServer, body: Any, status: int, code: str
    ) -> None:
        got, answer = await _post(client, body)
        assert (got, answer["error"]["code"]) == (status, code)
        assert livekit.recorded == []

    @pytest.mark.parametrize(("key", "status"), [("config", 403), ("rooms-only", 201)])
    async def test_needs_the_voice_rooms_scope(self, client: Client, key: str, status: int) -> None:
        got, _ = await _post(client, {"agentId": "crm"}, key=key)
        assert got == status

    async def test_no_key_is_401(self, client: Client) -> None:
        response = await client.post(PATH, json={"agentId": "crm"})
        assert response.status == 401

    async def test_livekit_refusal_is_502(self, client: Client, livekit: LiveKitServer) -> None:
        """A LiveKit error is a 502 naming the step, and no token is handed out."""
        livekit.fail_next(DISPATCH, TwirpFailure("unavailable", "no workers for agent"))
        status, answer = await _post(client, {"agentId": "crm"})
        assert (status, answer["error"]["code"]) == (502, "livekit_failed")
        assert "dispatch" in answer["error"]["message"]
        assert "token" not in answer

    async def test_without_livekit_settings_voice_is_503(self, make_client: MakeClient) -> None:
        client = await make_client(settings=None)
        status, answer = await _post(client, {"agentId": "crm"})
        assert (status, answer["error"]["code"]) == (503, "voice_not_configured")


class TestAgents:
    async def test_lists_agents_with_their_identity_keys(self, client: Client) -> None:
        response = await client.get("/api/voice/agents", headers=auth("rooms-only"))
        assert response.status == 200
        assert (await response.json())["agents"] == [
            {"agentId": "support", "identityKey": "phoneNumber"},
            {"agentId": "crm", "identityKey": "contact.email"},
            {"agentId": "plain", "identityKey": None},
        ]
