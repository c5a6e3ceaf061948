"""`python -m worker.cli dial`: the same dispatch as the API route, from a shell."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest

from sip.job_metadata import outbound_plan
from tests.agents.outside import AGENT, AGENTS, write_package
from tests.livekit_server import OUTBOUND_TRUNK_ID, LiveKitServer, TwirpFailure

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
