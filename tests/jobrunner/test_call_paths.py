"""The customer on every call path, with the examples of docs/deployment.md as written: an agent
keyed by `customerId` (`examples/accounts.py`, served by the bundled worker through `AGENTS`)
under livekit's job runner (THREAD executor, mock room, the LiveKit server API stand-in).

- Outbound: `examples/sip/outbound-call.json` is posted to the real web app; the dispatch it
  makes is the job's. The job dials, the callee answers, memory under the request's
  `customerId` is recalled before the greeting, and the call is saved under it.
- Inbound: LiveKit's SIP service, given `examples/sip/inbound-trunk.json` and
  `examples/sip/dispatch-rule.json` (`tests.jobrunner.sip_service`), turns the INVITE's
  `X-Customer-Id` header into the caller's attribute: the same recall and save. Without the
  header, no memory, and the worker logs the line the page shows.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import asyncpg
import pytest
import structlog
from livekit import api, rtc

from examples.accounts import accounts, agents
from memory.api import Memory
from memory.config import MemoryConfig
from memory.store import reads_of
from memory.store._settings import offer_code_bindings
from sip.dialing import CALLEE_IDENTITY
from testkit.fake_devices import wait_until
from testkit.job_runner import FakeCallSide, call_records, dispatch, job_server
from testkit.mock_room import SIP, MockRoom, participant
from testkit.model_server import ModelServer
from tests.jobrunner.conftest import SAVE_TIMEOUT
from tests.jobrunner.sip_service import (
    DISPATCH_RULE,
    INBOUND_TRUNK,
    OUTBOUND_CALL,
    InboundCall,
    inbound_call,
)
from tests.jobrunner.test_example_agent import instructions_of
from tests.livekit_server import OUTBOUND_TRUNK_ID, LiveKitServer
from tests.memory.helpers import add_op
from tests.waiting import eventually
from tests.web_clients import AppClients
from worker.catalog import Catalog
from worker.http.server.auth import parse_api_keys
from worker.http.web import create_app
from worker.voice_settings import VoiceSettings

ROOT = Path(__file__).resolve().parents[2]
DEPLOYMENT = ROOT / "docs" / "deployment.md"
EXAMPLES = ROOT / "examples"
CRM_ID = "CRM-4711"
CALLER = "+15105550199"
REMEMBERED = "Pays by direct debit since March."
CALLS_KEY = "calls-secret-0123456789abcdefghij"
DISPATCH = "AgentDispatchService/CreateDispatch"


@pytest.fixture(name="remembered")
async def _remembered(
    job_env: None,
    monkeypatch: pytest.MonkeyPatch,
    pool: asyncpg.Pool,
    memory: Memory,
    model_server: ModelServer,
) -> int:
    """The worker serves `examples.accounts:agents`, bound to customerId as worker start-up
    binds it; the CRM's customer already has one fact. The model requests made so far."""
    monkeypatch.setenv("AGENTS", "examples.accounts:agents")
    await offer_code_bindings(pool, {accounts.name: "customerId"})
    model_server.answer([add_op(REMEMBERED)], "Earlier call.")
    assert (await memory.add("An earlier call.", accounts.name, CRM_ID)).error is None
    return len(model_server.requests)


async def _posted_call(
    pool: asyncpg.Pool, memory_config: MemoryConfig, livekit: LiveKitServer
) -> api.CreateAgentDispatchRequest:
    """`examples/sip/outbound-call.json` posted to the web app: the dispatch it made."""
    voice = VoiceSettings(
        url=livekit.url,
        api_key=livekit.api_key,
        api_secret=livekit.api_secret,
        public_url=livekit.url,
        outbound_trunk_id=OUTBOUND_TRUNK_ID,
    )
    keys = json.dumps([{"name": "crm", "key": CALLS_KEY, "scopes": ["voice:calls"]}])
    app = create_app(
        pool=pool,
        catalog=Catalog(agents),
        api_keys=parse_api_keys(keys),
        memory_config=memory_config,
        voice=voice,
    )
    clients = AppClients()
    try:
        client = await clients.serve(app)
        headers = {"Authorization": f"Bearer {CALLS_KEY}"}
        body = json.loads(OUTBOUND_CALL.read_text())
        answered = await client.post("/api/voice/calls", json=body, headers=headers)
        assert answered.status == 202, await answered.text()
    finally:
        await clients.aclose()
    [made] = livekit.calls(DISPATCH)
    assert isinstance(made, api.CreateAgentDispatchRequest)
    return made


async def test_an_outbound_call_recalls_and_saves_under_the_requests_customer_id(
    remembered: int,
    *,
    livekit: LiveKitServer,
    room: MockRoom,
    side: FakeCallSide,
    model_server: ModelServer,
    pool: asyncpg.Pool,
    memory_config: MemoryConfig,
) -> None:
    made = await _posted_call(pool, memory_config, livekit)
    callee: list[rtc.RemoteParticipant] = []

    def answered(request: api.CreateSIPParticipantRequest) -> None:
        callee.append(participant(CALLEE_IDENTITY, SIP, livekit.callee_attributes(request)))
        room.join(callee[0])

    livekit.on_answer = answered
    model_server.answer([], "Called about an invoice.")
    async with job_server(side, SAVE_TIMEOUT) as server:
        await dispatch(server, made.metadata, agent_name=made.agent_name)
        await side.greeted()
        [dial] = livekit.calls("SIP/CreateSIPParticipant")
        assert dial.sip_call_to == json.loads(OUTBOUND_CALL.read_text())["phoneNumber"]
        room.leave(callee[0], rtc.DisconnectReason.CLIENT_INITIATED)
        await wait_until(lambda: len(model_server.requests) == remembered + 1, within=10)
    assert side.llm is not None
    assert REMEMBERED in instructions_of(side.llm.calls[0].chat_ctx)  # before the greeting
    records = await call_records(pool)
    assert [(r["user_id"], r["outcome"]) for r in records[1:]] == [(CRM_ID, "caller_hung_up")]
    # its recall (once the callee answered) left a read's record, written off the call path
    [read] = await eventually(lambda: reads_of(pool, accounts.name, CRM_ID), "the read's record")
    assert (read.reader, read.channel, read.route) == (records[-1]["run_id"], "voice", "recall")


async def _one_inbound_call(
    side: FakeCallSide, room: MockRoom, call: InboundCall, done: Callable[[], bool]
) -> None:
    """The caller joins with the SIP service's attributes, the agent greets, the caller hangs
    up; the worker stops (its job's shutdown awaited) once `done()` holds."""
    caller = participant("sip_+15105550199", SIP, call.attributes)
    room.join(caller)
    async with job_server(side, SAVE_TIMEOUT) as server:
        await dispatch(server, call.metadata, agent_name=call.agent_name)
        await side.greeted()
        room.leave(caller, rtc.DisconnectReason.CLIENT_INITIATED)
        await wait_until(done, within=10)


async def test_an_inbound_caller_with_the_mapped_header_is_recalled_and_saved(
    remembered: int,
    *,
    room: MockRoom,
    side: FakeCallSide,
    model_server: ModelServer,
    pool: asyncpg.Pool,
) -> None:
    model_server.answer([], "Asked about an invoice.")
    call = inbound_call(CALLER, {"X-Customer-Id": CRM_ID})
    await _one_inbound_call(side, room, call, lambda: len(model_server.requests) > remembered)
    assert side.llm is not None
    assert REMEMBERED in instructions_of(side.llm.calls[0].chat_ctx)  # before the greeting
    assert len(model_server.requests) == remembered + 1
    records = await call_records(pool)
    assert [(r["user_id"], r["outcome"]) for r in records[1:]] == [(CRM_ID, "caller_hung_up")]


def _documented_log_line() -> dict[str, Any]:
    """The worker's log line docs/deployment.md shows for a caller without the header."""
    blocks = re.findall(r"```json\n(.*?)```", DEPLOYMENT.read_text("utf-8"), re.S)
    [line] = [json.loads(b) for b in blocks if '"call.memory_plan"' in b]
    assert isinstance(line, dict)
    return line


async def test_an_inbound_caller_without_the_header_has_no_memory_and_the_reason(
    remembered: int,
    *,
    room: MockRoom,
    side: FakeCallSide,
    model_server: ModelServer,
    pool: asyncpg.Pool,
) -> None:
    with structlog.testing.capture_logs() as logs:
        await _one_inbound_call(side, room, inbound_call(CALLER, {}), lambda: bool(side.closes))
    assert side.llm is not None
    assert REMEMBERED not in instructions_of(side.llm.calls[0].chat_ctx)
    assert len(model_server.requests) == remembered  # nothing saved
    assert len(await call_records(pool)) == 1  # the earlier call's only
    [plan] = [e for e in logs if e["event"] == "call.memory_plan"]
    shown = _documented_log_line()
    assert (shown["message"], shown["level"].lower()) == (plan["event"], plan["log_level"])
    fields = ("agent_id", "read", "save", "active", "reason")
    assert {k: shown[k] for k in fields} == {k: plan[k] for k in fields}
    assert plan["reason"] == "identity_attribute_missing"
    assert CALLER not in repr(logs)


@pytest.mark.parametrize(
    "example",
    [INBOUND_TRUNK, DISPATCH_RULE, OUTBOUND_CALL, EXAMPLES / "accounts.py"],
    ids=lambda p: p.name,
)
def test_the_page_shows_the_examples_the_tests_use(example: Path) -> None:
    """Each example file is on docs/deployment.md verbatim, in a fenced block of its own."""
    blocks = re.findall(r"```\w*\n(.*?)```", DEPLOYMENT.read_text("utf-8"), re.S)
    assert example.read_text("utf-8") in blocks
