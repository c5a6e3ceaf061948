"""`python -m worker.cli dial`: the same dispatch as the API route, from a shell, `--identity`
options included."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest

from chat.identities import MAX_ENTRIES, MAX_NAME_CHARS, MAX_VALUE_CHARS
from lifecycle.identity import resolve_identity
from sip.job_metadata import outbound_plan, parse_job_metadata
from tests.agents.outside import AGENT, AGENTS, write_package
from tests.livekit_server import OUTBOUND_TRUNK_ID, LiveKitServer, TwirpFailure
from tests.rooms.conftest import auth
from tests.web_clients import Client

pytestmark = pytest.mark.processes  # starts processes: not in `make check`

NUMBER = "+34600111222"


async def _run(livekit: LiveKitServer, *args: str, **env: str) -> tuple[int, str, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("LIVEKIT_", "SIP_"))}
    base |= {
        "LIVEKIT_URL": livekit.url,
        "LIVEKIT_API_KEY": livekit.api_key,
        "LIVEKIT_API_SECRET": livekit.api_secret,
    } | env
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "worker.cli",
        "dial",
        *args,
        env=base,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), timeout=60)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def test_dial_dispatches_with_the_default_trunk(livekit: LiveKitServer) -> None:
    """The command dispatches the agent with a dial plan and prints the room, not the number."""
    code, out, err = await _run(
        livekit, "--agent", "support", "--to", NUMBER, SIP_OUTBOUND_TRUNK_ID=OUTBOUND_TRUNK_ID
    )
    assert code == 0, err
    [dispatch] = livekit.calls("AgentDispatchService/CreateDispatch")
    assert dispatch.agent_name == "support"
    assert dispatch.room in out
    plan = outbound_plan(dispatch.metadata)
    assert plan is not None and (plan.number, plan.trunk_id) == (NUMBER, OUTBOUND_TRUNK_ID)
    assert NUMBER not in out + err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--agent", "ghost", "--to", NUMBER, "--trunk", "ST_x"), "agentId"),
        (("--agent", "support", "--to", "+34 600", "--trunk", "ST_x"), "phoneNumber"),
        (("--agent", "support", "--to", NUMBER), "trunkId"),
    ],
)
async def test_refusals_exit_2_before_livekit(
    livekit: LiveKitServer, args: tuple[str, ...], message: str
) -> None:
    code, _, err = await _run(livekit, *args)
    assert code == 2
    assert message in err
    assert livekit.recorded == []


async def test_livekit_refusal_exits_1(livekit: LiveKitServer) -> None:
    livekit.fail_next("RoomService/CreateRoom", TwirpFailure("unavailable", "down"))
    code, _, err = await _run(livekit, "--agent", "support", "--to", NUMBER, "--trunk", "ST_x")
    assert code == 1
    assert "create the room" in err


async def test_dial_reaches_the_agents_AGENTS_names(livekit: LiveKitServer, tmp_path: Path) -> None:
    """A team's own agent (its package named by `AGENTS`) is dialled; the project's own
    `support`, not in that package, is then an unknown agent."""
    env = {"AGENTS": AGENTS, "PYTHONPATH": str(write_package(tmp_path))}
    code, _, err = await _run(livekit, "--agent", AGENT, "--to", NUMBER, "--trunk", "ST_x", **env)
    assert code == 0, err
    [dispatch] = livekit.calls("AgentDispatchService/CreateDispatch")
    assert dispatch.agent_name == AGENT
    code, _, err = await _run(
        livekit, "--agent", "support", "--to", NUMBER, "--trunk", "ST_x", **env
    )
    assert code == 2 and "agentId" in err


DIAL = ("--agent", "support", "--to", NUMBER, "--trunk", "ST_x")
NAME_AT_LIMIT, VALUE_AT_LIMIT = "n" * MAX_NAME_CHARS, "ü" * MAX_VALUE_CHARS


def identities(*pairs: str) -> tuple[str, ...]:
    return tuple(option for pair in pairs for option in ("--identity", pair))


async def test_an_identity_reaches_the_job_as_the_route_puts_it(
    livekit: LiveKitServer, client: Client, database_url: str
) -> None:
    """`--identity customerId=C-1` gives the dispatch the metadata `POST /api/voice/calls`
    gives for the same body, byte for byte, and prints the route's answer: the same keys and
    the same memory outlook, read from the same database."""
    code, out, err = await _run(
        livekit, *DIAL, *identities("customerId=C-1"), DATABASE_URL=database_url
    )
    assert code == 0, err
    body = {"agentId": "support", "phoneNumber": NUMBER, "trunkId": "ST_x"}
    response = await client.post(
        "/api/voice/calls", json={**body, "identities": {"customerId": "C-1"}}, headers=auth()
    )
    assert response.status == 202, await response.text()
    printed, answered = json.loads(out), await response.json()
    assert printed.keys() == answered.keys()
    assert (
        printed["memory"]
        == answered["memory"]
        == {
            "identityKey": "phoneNumber",
            "enabled": True,
            "reason": None,
        }
    )
    from_cli, from_route = livekit.calls("AgentDispatchService/CreateDispatch")
    assert from_cli.metadata == from_route.metadata
    metadata = parse_job_metadata(from_cli.metadata)
    assert dict(metadata.identities) == {"customerId": "C-1"}  # the number stays phoneNumber
    assert resolve_identity("phoneNumber", None, metadata).user_id == NUMBER


async def test_a_dial_goes_out_when_the_settings_cannot_be_read(livekit: LiveKitServer) -> None:
    """A database that does not answer delays the call at most `OUTLOOK_SECONDS` and never
    stops it: memory is off for now, with the job's own reason, as the route says."""
    code, out, err = await _run(livekit, *DIAL, DATABASE_URL="postgresql://127.0.0.1:1/none")
    assert code == 0, err
    assert json.loads(out)["memory"] == {
        "identityKey": None,
        "enabled": False,
        "reason": "settings_unavailable",
    }
    [dispatch] = livekit.calls("AgentDispatchService/CreateDispatch")
    assert dispatch.agent_name == "support"


async def test_identities_at_the_limits_reach_the_job_byte_for_byte(
    livekit: LiveKitServer,
) -> None:
    """32 names, one of 100 characters with a value of 500; `=` in a value is the value's."""
    pairs = [f"{NAME_AT_LIMIT}={VALUE_AT_LIMIT}", "contact.email=  a=b@example.com\t"]
    pairs += [f"k{i}=v" for i in range(MAX_ENTRIES - 2)]
    code, _, err = await _run(livekit, *DIAL, *identities(*pairs))
    assert code == 0, err
    [dispatch] = livekit.calls("AgentDispatchService/CreateDispatch")
    expected = dict(pair.split("=", 1) for pair in pairs)
    assert dict(parse_job_metadata(dispatch.metadata).identities) == expected


@pytest.mark.parametrize(
    ("pairs", "rule"),
    [
        (("customerId",), "must be NAME=VALUE"),
        (("=C-1",), "(identity_name_empty)"),
        (("customerId=",), "(identity_value_empty)"),
        (("customerId=C-1", "customerId=C-2"), "each name must be given once"),
        (tuple(f"k{i}=v" for i in range(MAX_ENTRIES + 1)), "(identities_too_many)"),
        ((f"{NAME_AT_LIMIT}n=v",), "(identity_name_too_long)"),
        ((f"customerId={VALUE_AT_LIMIT}ü",), "(identity_value_too_long)"),
    ],
    ids=["no-equals", "empty-name", "empty-value", "twice", "33", "name-101", "value-501"],
)
async def test_a_broken_identity_exits_2_naming_it_before_livekit(
    livekit: LiveKitServer, pairs: tuple[str, ...], rule: str
) -> None:
    code, out, err = await _run(livekit, *DIAL, *identities(*pairs))
    assert (code, out) == (2, "")
    [line] = err.splitlines()
    assert line.startswith("error: --identity: ") and rule in line
    assert "C-1" not in line and "ü" not in line  # the rule, never what was given
    assert livekit.recorded == []
