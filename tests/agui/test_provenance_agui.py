"""A fact saved by `memory_save` during an AG-UI run says it came from `agui`, the run's
thread (its chat session) and the key that ran it."""

from __future__ import annotations

import asyncpg

from memory.api import Memory
from memory.settings import Overrides, SettingsUpdate
from memory.store import save_settings
from testkit.model_server import ModelServer
from tests.agui.conftest import headers, run_body
from tests.agui.outside import AGENT
from tests.memory.helpers import add_op
from tests.web_clients import Client


async def test_a_save_in_an_agui_run_is_from_agui(
    agui_app: Client, model_server: ModelServer, memory: Memory, pool: asyncpg.Pool
) -> None:
    await save_settings(pool, AGENT, SettingsUpdate(Overrides(save=True), None), "tester")
    model_server.call_tool("memory_save", {"content": "Send it by email, please."})
    model_server.answer([{**add_op("Prefers email."), "evidence": "by email"}])
    model_server.answer_text("Noted.")
    async with agui_app.post(f"/agui/{AGENT}", json=run_body(), headers=headers()) as answer:
        assert answer.status == 200
        assert "RUN_FINISHED" in await answer.text()
    recalled = (await memory.recall(AGENT, "crm/42")).data
    assert recalled is not None
    (fact,) = recalled.facts
    session = await pool.fetchval(
        "select id::text from stackbone_platform.chat_sessions where session_key = 'thread-1'"
    )
    assert (fact.source.channel, fact.source.session_id) == ("agui", session)
    assert fact.source.writer.key == "chat" and fact.source.evidence == "by email"
