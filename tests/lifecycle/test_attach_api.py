"""The attach API's own decisions: its declaration, its configuration, the session it accepts,
and the identity key an agent declared only in code."""

from __future__ import annotations

from datetime import UTC, datetime

import asyncpg
import pytest

from callmemory import CallerMemory, CodeDefaults, SessionAlreadyStarted
from callmemory.config import SHUTDOWN_PROCESS_TIMEOUT_MARGIN, CallConfig, load_call_config
from infra.deadline import Deadline
from lifecycle.call import CallSetup, attach_memory
from lifecycle.identity import Identity, NoIdentity
from lifecycle.plan import MemoryPlan
from lifecycle.snapshot import bound_snapshot, key_to_offer
from lifecycle.start import CallStart
from memory.api import Memory
from memory.config import ConfigError
from memory.settings import Binding, CallSettings, Overrides, SettingsUpdate
from memory.store._settings import save_settings
from testkit.fake_devices import fake_session, wire
from testkit.fake_models import FakeLLM
from worker.greeter import Greeter

NOW = datetime(2026, 1, 1, tzinfo=UTC)
KEYED = CodeDefaults(read=True, identity_key="phoneNumber")


@pytest.mark.parametrize(
    ("agent_id", "ok"),
    [("a", True), ("x" * 200, True), ("", False), ("x" * 201, False), ("a\x00b", False)],
)
def test_the_agent_id_is_a_memory_scope(agent_id: str, ok: bool) -> None:
    if ok:
        assert CallerMemory(agent_id).agent_id == agent_id
        return
    with pytest.raises(ConfigError, match="agent_id"):
        CallerMemory(agent_id)


def test_from_env_names_a_bad_variable_at_start_up(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CALL_RECALL_BUDGET_SECONDS", "soon")
    with pytest.raises(SystemExit) as exited:
        CallerMemory.from_env("front-desk", defaults=KEYED)
    assert exited.value.code == 2
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith("configuration error: CALL_RECALL_BUDGET_SECONDS: ")
    monkeypatch.setenv("CALL_RECALL_BUDGET_SECONDS", "0.5")
    monkeypatch.setenv("STACKBONE_MEMORY_TIMEOUT_SECONDS", "4")
    monkeypatch.setenv("CALL_SAVE_TIMEOUT_SECONDS", "12")
    memory = CallerMemory.from_env("front-desk", defaults=KEYED)
    assert (memory.defaults, memory.config) == (KEYED, None)  # each job reads its environment
    assert memory.shutdown_process_timeout == 12 + SHUTDOWN_PROCESS_TIMEOUT_MARGIN


@pytest.mark.parametrize(
    ("save_timeout", "ok"), [("4", False), ("4.001", True), ("0", False), ("inf", False)]
)
def test_the_save_timeout_must_exceed_the_extraction_timeout(save_timeout: str, ok: bool) -> None:
    env = {"STACKBONE_MEMORY_TIMEOUT_SECONDS": "4", "CALL_SAVE_TIMEOUT_SECONDS": save_timeout}
    if ok:
        assert load_call_config(env).save_timeout_seconds == float(save_timeout)
        return
    with pytest.raises(ConfigError, match="CALL_SAVE_TIMEOUT_SECONDS"):
        load_call_config(env)


def test_defaults_of_a_call() -> None:
    config = load_call_config({})
    assert config == CallConfig()
    assert config.save_timeout_seconds == config.memory.timeout_seconds + 10
    assert config.recall_budget_seconds == 0.35


def _settings(binding: Binding | None) -> CallSettings:
    return CallSettings(read=True, save=True, instructions=None, binding=binding)


@pytest.mark.parametrize(
    ("settings", "code", "offered"),
    [
        (_settings(None), KEYED, "phoneNumber"),  # declared in code, nothing bound: offer it
        (_settings(Binding("email", "studio", NOW)), KEYED, None),  # bound already: never
        (_settings(None), CodeDefaults(read=True), None),  # nothing declared
        (None, KEYED, None),  # settings unreadable: no write either
    ],
)
def test_which_key_a_call_offers(
    settings: CallSettings | None, code: CodeDefaults, offered: str | None
) -> None:
    assert key_to_offer(settings, code) == offered


async def test_a_first_call_binds_the_code_key_and_a_stored_key_stays(pool: asyncpg.Pool) -> None:
    first = await bound_snapshot(pool, "front-desk", KEYED)
    assert first is not None and first.binding is not None
    assert (first.binding.identity_key, first.binding.source) == ("phoneNumber", "code")
    update = SettingsUpdate(overrides=Overrides(), identity_key="email")
    await save_settings(pool, "studio-first", update, "tester")
    kept = await bound_snapshot(pool, "studio-first", KEYED)
    assert kept is not None and kept.binding is not None
    assert (kept.binding.identity_key, kept.binding.source) == ("email", "studio")


async def test_memory_cannot_attach_to_a_running_session(memory: Memory) -> None:
    session = fake_session(llm_model=FakeLLM(["Hello."]))
    io = wire(session)
    agent = Greeter("Be kind.")
    await session.start(agent=agent)
    plan = MemoryPlan("support", None, read=False, save=False, instructions=None)
    start = CallStart(
        None, Identity(None, NoIdentity.NO_BINDING), plan, Deadline.after(1.0), NOW, "job-1"
    )
    setup = CallSetup(start, 5.0)
    registered: list[object] = []
    try:
        with pytest.raises(SessionAlreadyStarted, match=r"before session\.start"):
            await attach_memory(session, agent, memory, setup, register_shutdown=registered.append)
        assert registered == []  # nothing was wired
    finally:
        await session.aclose()
        await io.speaker.aclose()
