"""POST /api/voice/calls: an outbound dialing job, dispatched with server-owned metadata."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

import asyncpg
import pytest
import structlog
from jsonschema import Draft202012Validator

from chat.identities import MAX_ENTRIES, MAX_NAME_CHARS, MAX_VALUE_CHARS
from lifecycle.identity import resolve_identity
from sip.job_metadata import outbound_plan, parse_job_metadata
from testkit.databases import drop_database_under
from tests.livekit_server import OUTBOUND_TRUNK_ID, LiveKitServer
from tests.rooms.conftest import auth
from tests.waiting import eventually
from tests.web_clients import Client, MakeClient
from worker.http.server.context import DIRECTORY
from worker.voice_settings import VoiceSettings

PATH = "/api/voice/calls"
NUMBER = "+34600111222"
DISPATCH = "AgentDispatchService/CreateDispatch"
AT_LIMIT = [
    {f"k{i}": "v" for i in range(MAX_ENTRIES)},
    {"n" * MAX_NAME_CHARS: "ü" * MAX_VALUE_CHARS, "contact.email": "  Zoë@Example.com\t"},
]
PAST_LIMIT: list[tuple[object, str]] = [
    ({f"k{i}": "v" for i in range(MAX_ENTRIES + 1)}, "identities_too_many"),
    ({"n" * (MAX_NAME_CHARS + 1): "v"}, "identity_name_too_long"),
    ({"customerId": "x" * (MAX_VALUE_CHARS + 1)}, "identity_value_too_long"),
    ({"customerId": ""}, "identity_value_empty"),
    ({"": "v"}, "identity_name_empty"),
    ({"customerId": 7}, "identity_value_not_string"),
    (["customerId"], "identities_not_object"),
]


def _true(check: Callable[[], bool]) -> Callable[[], Awaitable[bool]]:
    async def probe() -> bool:
        return check()

    return probe


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


class TestIdentities:
    """`identities` beside the number: the rules and limits of `POST /api/voice/rooms`."""

    @pytest.mark.parametrize("identities", AT_LIMIT)
    async def test_at_the_limit_they_reach_the_job_byte_for_byte(
        self, client: Client, livekit: LiveKitServer, identities: dict[str, str]
    ) -> None:
        body = {"agentId": "crm", "phoneNumber": NUMBER, "identities": identities}
        status, answer = await _post(client, body)
        assert status == 202, answer
        metadata = parse_job_metadata(livekit.calls(DISPATCH)[0].metadata)
        assert dict(metadata.identities) == identities
        assert metadata.outbound is not None and metadata.outbound.number == NUMBER

    @pytest.mark.parametrize(("identities", "rule"), PAST_LIMIT)
    async def test_one_past_the_limit_is_a_400_naming_the_rule(
        self, client: Client, livekit: LiveKitServer, identities: Any, rule: str
    ) -> None:
        body = {"agentId": "crm", "phoneNumber": NUMBER, "identities": identities}
        status, answer = await _post(client, body)
        assert (status, answer["error"]["code"]) == (400, "invalid_identities")
        assert answer["error"]["field"] == "identities" and rule in answer["error"]["message"]
        assert livekit.recorded == []

    async def test_the_customer_is_the_identity_and_the_number_stays_phone_number(
        self, client: Client, livekit: LiveKitServer
    ) -> None:
        """An agent keyed by customerId gets the request's id; the dialed number is still the
        callee's phoneNumber, unless `identities` names one."""
        body = {"agentId": "crm", "phoneNumber": NUMBER, "identities": {"customerId": "C-1"}}
        await _post(client, body)
        await _post(client, {**body, "identities": {"phoneNumber": "34600111222"}})
        first, second = (parse_job_metadata(d.metadata) for d in livekit.calls(DISPATCH))
        assert resolve_identity("customerId", None, first).user_id == "C-1"
        assert resolve_identity("phoneNumber", None, first).user_id == NUMBER
        assert resolve_identity("phoneNumber", None, second).user_id == "34600111222"

    async def test_the_openapi_document_states_the_same_limits(self, client: Client) -> None:
        document = await (await client.get("/api/openapi.json")).json()
        schemas = document["components"]["schemas"]
        assert (
            schemas["CallBody"]["properties"]["identities"]
            == schemas["RoomBody"]["properties"]["identities"]
        )
        schema = {**schemas["CallBody"], "components": document["components"]}
        validator = Draft202012Validator(schema)
        for identities in AT_LIMIT:
            body = {"agentId": "crm", "phoneNumber": NUMBER, "identities": identities}
            assert validator.is_valid(body)
        for refused, _ in PAST_LIMIT:
            past: dict[str, object] = {"agentId": "crm", "phoneNumber": NUMBER}
            assert not validator.is_valid({**past, "identities": refused}), refused


class TestMemoryOutlook:
    """The answer says whether the call will have memory, as the job resolves its metadata."""

    @pytest.mark.parametrize(
        ("agent", "identities", "memory"),
        [
            ("support", None, ("phoneNumber", True, None)),
            ("support", {"phoneNumber": "34600111222"}, ("phoneNumber", True, None)),
            ("crm", {"contact.email": "a@b.c"}, ("contact.email", True, None)),
            ("crm", None, ("contact.email", False, "identity_missing")),
            ("crm", {"email": "a@b.c"}, ("contact.email", False, "identity_missing")),
            ("plain", {"customerId": "C-1"}, (None, False, "no_binding")),
        ],
    )
    async def test_memory_answer_follows_the_bound_identity(
        self,
        client: Client,
        livekit: LiveKitServer,
        agent: str,
        identities: dict[str, str] | None,
        memory: tuple[str | None, bool, str | None],
    ) -> None:
        """The call always starts; memory is on only with the bound key, else it says why."""
        body = {"agentId": agent, "phoneNumber": NUMBER, "identities": identities}
        status, answer = await _post(client, body)
        assert status == 202, answer
        outlook = answer["memory"]
        assert (outlook["identityKey"], outlook["enabled"], outlook["reason"]) == memory
        [dispatch] = livekit.calls(DISPATCH)
        job = resolve_identity(memory[0], None, parse_job_metadata(dispatch.metadata))
        assert (job.user_id is not None) == outlook["enabled"]
        assert NUMBER not in json.dumps(answer)  # the outlook names the key, never the value

    async def test_a_call_goes_out_when_the_settings_cannot_be_read(
        self, client: Client, livekit: LiveKitServer, pool: asyncpg.Pool, pg_admin_url: str
    ) -> None:
        """Dialing never waited on the database: without it the call still starts, with the
        agents last read (their read is due and fails), and the answer says memory is off for
        now with the job's own reason."""
        directory = client.app[DIRECTORY]
        await drop_database_under(pool, pg_admin_url)
        await eventually(_true(directory.due), "the registry read due")
        with structlog.testing.capture_logs() as logs:
            status, answer = await _post(client, {"agentId": "support", "phoneNumber": NUMBER})
        assert status == 202, answer
        assert answer["memory"] == {
            "identityKey": None,
            "enabled": False,
            "reason": "settings_unavailable",
        }
        assert [entry["event"] for entry in logs if entry["log_level"] == "warning"] == [
            "web.agents_read_failed"
        ]
        assert not directory.due()  # not asked again by every request meanwhile
        [dispatch] = livekit.calls(DISPATCH)
        assert dispatch.agent_name == "support"
