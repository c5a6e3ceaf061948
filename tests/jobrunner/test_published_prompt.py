"""A prompt published from the console reaches voice calls: the bundled worker (`worker.agent`,
the agent loaded through `AGENTS`) under livekit's job runner (THREAD executor, mock room)
greets with the published text in place of the code's instructions, and a call keeps the text
it snapshotted at room open when the prompt is republished mid-call; the next call's opening
reads the new one."""

from __future__ import annotations

import asyncpg
import pytest
from livekit import rtc

from callmemory import PHONE_CALLERS, define_agent
from memory.settings import CodeDefaults
from memory.store import open_call
from memory.store._prompts import publish_prompt, reset_prompt, save_prompt_draft
from testkit.fake_devices import wait_until
from testkit.fake_models import LLMCall
from testkit.job_runner import AGENT, FakeCallSide, job_server
from testkit.mock_room import SIP, MockRoom, participant
from testkit.model_server import ModelServer
from tests.jobrunner.conftest import SAVE_TIMEOUT

NUMBER = "+34600888111"
CODE_PROMPT = "You answer the phone for the code's shop."
FIRST = "You answer the phone for Maria's bakery. Mention the sourdough."
SECOND = "You answer the phone for Maria's bakery. Mention the croissants."
ASK = "What do you have today?"
ANSWER = "Fresh sourdough today."

agents = [define_agent(name=AGENT, instructions=CODE_PROMPT, memory=PHONE_CALLERS)]
"""What `AGENTS` names in these tests (`tests.jobrunner.test_published_prompt:agents`)."""


def system_text(call: LLMCall) -> str:
    return "\n".join(text for role, text in call.messages if role in ("system", "developer"))


async def publish(pool: asyncpg.Pool, text: str) -> None:
    await save_prompt_draft(pool, AGENT, text, "operator")
    await publish_prompt(pool, AGENT, "operator")


async def test_a_call_greets_with_the_published_prompt_and_keeps_its_snapshot(
    job_env: None,
    *,
    room: MockRoom,
    side: FakeCallSide,
    model_server: ModelServer,
    pool: asyncpg.Pool,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AGENTS", f"{__name__}:agents")
    await publish(pool, FIRST)
    caller = participant("sip_caller", SIP, {"sip.phoneNumber": NUMBER})
    room.join(caller)
    side.replies = (ANSWER,)
    model_server.answer([], "Asked what is fresh today.")  # the save at close
    async with job_server(side, SAVE_TIMEOUT) as server:
        await server.simulate_job("call-room", fake_job=True)
        await side.greeted()
        llm, session = side.llm, side.session
        assert llm is not None and session is not None
        greeting = system_text(llm.calls[0])
        assert FIRST in greeting and CODE_PROMPT not in greeting

        await publish(pool, SECOND)  # republished while the call runs
        side.in_job(session.generate_reply, user_input=ASK)
        await wait_until(lambda: len(llm.calls) >= 2, within=10)
        reply = system_text(llm.calls[1])
        assert FIRST in reply and SECOND not in reply  # the call's snapshot holds
        room.leave(caller, rtc.DisconnectReason.CLIENT_INITIATED)
        await wait_until(lambda: len(model_server.requests) == 1, within=10)

    code = CodeDefaults(read=True, save=True, identity_key="phoneNumber")
    opened = await open_call(pool, AGENT, code, {"phoneNumber": NUMBER}, 5)
    assert opened.settings.prompt == SECOND  # the next call's opening reads the new text
    await reset_prompt(pool, AGENT, "operator")
    opened = await open_call(pool, AGENT, code, {"phoneNumber": NUMBER}, 5)
    assert opened.settings.prompt is None  # the code's instructions again
