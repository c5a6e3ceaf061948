"""The official AG-UI client, `@ag-ui/client`'s `HttpAgent` under node, against the wire over
a real port: a streamed run with a server tool, a held tool approved through a resume
(`buildResumeArray`), and a client tool's round trip (`tests/agui/client.mjs`).

Node and the package come from `make setup` (`npm ci`); without them the test skips, and under
`REQUIRE_BROWSER=1` (CI, `.ci/run`) it fails, as the browser tests do."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Any

from testkit.model_server import ModelServer
from tests.agui.conftest import CHAT_KEY
from tests.agui.outside import AGENT
from tests.rooms.browser import browser_missing
from tests.waiting import BUSY_MACHINE_SECONDS
from tests.web_clients import Client

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = Path(__file__).with_name("client.mjs")
PACKAGE = ROOT / "node_modules" / "@ag-ui" / "client" / "package.json"


async def run_client(app: Client, script: Path = SCRIPT) -> dict[str, Any]:
    node = shutil.which("node")
    if node is None or not PACKAGE.exists():
        browser_missing("node and @ag-ui/client are needed: install node 20, then `make setup`")
    env = {
        "BASE": str(app.make_url(f"/agui/{AGENT}")),
        "KEY": CHAT_KEY,
        "CUSTOMER": "crm/42",
        "PATH": str(Path(node).parent),  # type: ignore[arg-type]
    }
    process = await asyncio.create_subprocess_exec(
        str(node), str(script), cwd=ROOT, env=env, stdout=-1, stderr=-1
    )
    out, err = await asyncio.wait_for(process.communicate(), BUSY_MACHINE_SECONDS * 3)
    assert process.returncode == 0, err.decode()
    seen: dict[str, Any] = json.loads(out)
    return seen


async def test_the_official_client_streams_holds_and_round_trips_a_client_tool(
    agui_app: Client, model_server: ModelServer
) -> None:
    model_server.call_tool("lookup_order", {"order_id": "A-1"})  # streamed
    model_server.answer_text("Order A-1 has shipped.")
    model_server.call_tool("issue_refund", {"order_id": "A-1", "amount": 10})  # held
    model_server.answer_text("Refunded.")
    model_server.call_tool("ask_user", {"question": "Proceed?"})  # client tool
    model_server.answer_text("Going ahead.")
    seen = await run_client(agui_app)

    streamed = seen["streamed"]
    assert "error" not in streamed, streamed
    assert "".join(streamed["deltas"]) == "Order A-1 has shipped."
    assert streamed["results"] == ["order A-1 of crm/42 at desk: shipped"]
    assert streamed["events"][0] == "RUN_STARTED" and streamed["events"][-1] == "RUN_FINISHED"
    assert [m["role"] for m in streamed["messages"]] == ["assistant", "tool", "assistant"]
    assert streamed["messages"][0]["toolCalls"] == ["lookup_order"]

    held = seen["held"]
    assert "error" not in held, held
    assert held["outcome"] == "interrupt"
    [interrupt] = held["interrupts"]
    assert (interrupt["reason"], interrupt["tool"]) == ("tool_call", "issue_refund")
    assert held["refused"] == 409
    assert held["results"] == ["refunded 10 on A-1 for crm/42"]
    assert held["pendingAfter"] == 0
    assert held["messages"][-1] == {"role": "assistant", "content": "Refunded.", "toolCalls": []}

    client = seen["client"]
    assert "error" not in client, client
    assert len(client["pending"]) == 1
    assert client["messages"][-1]["content"] == "Going ahead."
    sent = model_server.requests[-1]["messages"]
    assert sent[-1]["role"] == "tool" and sent[-1]["content"] == "yes"


async def test_a_reloaded_page_gets_its_thread_and_pending_approval_back_and_resumes_it(
    agui_app: Client, model_server: ModelServer
) -> None:
    """A fresh `HttpAgent` on a parked thread, with no messages: the connect run restores the
    messages and `pendingInterrupts` (no model request); a new message meets the 409 with the
    pending call; the restored interrupt resumes (`tests/agui/client_restore.mjs`)."""
    model_server.call_tool("issue_refund", {"order_id": "A-1", "amount": 10})
    model_server.answer_text("Refunded.")
    seen = await run_client(agui_app, SCRIPT.with_name("client_restore.mjs"))

    [parked] = seen["parked"]
    restored = seen["restored"]
    assert restored["events"] == ["RUN_STARTED", "MESSAGES_SNAPSHOT", "RUN_FINISHED"]
    assert restored["interrupts"] == [parked | {"reason": "tool_call", "tool": "issue_refund"}]
    user, held = restored["messages"]
    assert (user["role"], user["content"]) == ("user", "Refund 10 on A-1")
    assert held["toolCalls"] == ["issue_refund"] and held["toolCallIds"] == [parked["toolCallId"]]

    refused = seen["refused"]
    assert refused["status"] == 409
    assert (refused["error"]["code"], refused["error"]["field"]) == ("decision_pending", "threadId")
    decision = refused["error"]["decision"]
    assert (decision["id"], decision["toolCallId"]) == (parked["id"], parked["toolCallId"])
    assert decision["tool"] == "issue_refund"

    assert seen["results"] == ["refunded 10 on A-1 for crm/42"]
    assert [m["role"] for m in seen["after"]] == ["user", "assistant", "tool", "assistant"]
    assert seen["after"][-1]["content"] == "Refunded." and seen["pendingAfter"] == 0
    assert len(model_server.requests) == 2  # the held call and the answer: none to restore
