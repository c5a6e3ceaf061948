"""Model and reasoning effort resolve from stored selection, client option, env, default."""

from __future__ import annotations

import asyncpg
import pytest
import structlog.testing

from callmemory import environment
from callmemory.config import memory_config
from memory.api import open_memory
from memory.config import ConfigError, MemoryConfig, resolve_choice
from memory.extraction._prompts import prompt
from memory.store._facts import MemoryStore
from testkit.model_server import ModelServer


def config_from(env: dict[str, str]) -> MemoryConfig:
    return memory_config(environment.read(env))


@pytest.mark.parametrize(
    ("stored", "client", "env", "expected"),
    [
        (None, None, None, "openai/gpt-5.6-luna"),
        (None, None, "env-model", "env-model"),
        (None, "client-model", "env-model", "client-model"),
        ("stored-model", "client-model", "env-model", "stored-model"),
    ],
)
def test_model_resolution_order(
    stored: str | None, client: str | None, env: str | None, expected: str
) -> None:
    config = MemoryConfig(model=client, env_model=env)
    assert resolve_choice(config, stored, None).model == expected


@pytest.mark.parametrize(
    ("stored", "client", "env", "expected"),
    [
        (None, None, None, "high"),
        (None, None, "low", "low"),
        (None, "medium", "low", "medium"),
        ("minimal", "medium", "low", "minimal"),
    ],
)
def test_effort_resolution_order(
    stored: str | None, client: str | None, env: str | None, expected: str
) -> None:
    config = MemoryConfig(reasoning_effort=client, env_reasoning_effort=env)
    assert resolve_choice(config, None, stored).reasoning_effort == expected


def test_provider_prefix_is_stripped_for_direct_calls() -> None:
    assert resolve_choice(MemoryConfig(), None, None).provider_model == "gpt-5.6-luna"
    assert resolve_choice(MemoryConfig(model="acme/x"), None, None).provider_model == "acme/x"


@pytest.mark.parametrize("effort", ["extreme", "HIGH", ""])
def test_unknown_efforts_are_refused(effort: str) -> None:
    with pytest.raises(ConfigError, match="reasoning_effort"):
        MemoryConfig(reasoning_effort=effort)
    with pytest.raises(ConfigError, match="STACKBONE_MEMORY_REASONING_EFFORT"):
        config_from({"STACKBONE_MEMORY_REASONING_EFFORT": effort or "x"})
    # a blank variable is an unset one, as for every variable of the settings model
    assert config_from({"STACKBONE_MEMORY_REASONING_EFFORT": " "}).env_reasoning_effort is None


def test_environment_is_read() -> None:
    config = config_from(
        {
            "STACKBONE_MEMORY_MODEL": "openai/gpt-x",
            "STACKBONE_MEMORY_REASONING_EFFORT": "xhigh",
            "STACKBONE_MEMORY_BASE_URL": "http://127.0.0.1:1/v1",
            "STACKBONE_MEMORY_TIMEOUT_SECONDS": "12.5",
            "STACKBONE_MEMORY_RESPONSE_FORMAT": "json_object",
        }
    )
    assert (config.env_model, config.env_reasoning_effort) == ("openai/gpt-x", "xhigh")
    assert (config.timeout_seconds, config.structured_output) == (12.5, False)
    with pytest.raises(ConfigError, match="STACKBONE_MEMORY_TIMEOUT_SECONDS"):
        config_from({"STACKBONE_MEMORY_TIMEOUT_SECONDS": "soon"})
    with pytest.raises(ConfigError, match="STACKBONE_MEMORY_RESPONSE_FORMAT"):
        config_from({"STACKBONE_MEMORY_RESPONSE_FORMAT": "xml"})


async def test_stored_selection_reaches_the_provider(
    pool: asyncpg.Pool, model_server: ModelServer
) -> None:
    await pool.execute(
        "insert into stackbone_platform.memory_extraction_settings (model, reasoning_effort)"
        " values ('openai/stored-model', 'low')"
    )
    config = MemoryConfig(
        base_url=model_server.url, api_key="k", model="client-model", structured_output=False
    )
    memory = open_memory(MemoryStore(pool), config)
    model_server.answer([], "s")
    assert (await memory.add("hi", "support", "u1")).error is None
    body = model_server.requests[0]
    assert (body["model"], body["reasoning_effort"]) == ("stored-model", "low")
    assert body["response_format"] == {"type": "json_object"}


async def test_published_guidance_replaces_the_built_in_one(
    pool: asyncpg.Pool, model_server: ModelServer, memory_config: MemoryConfig
) -> None:
    await pool.execute(
        "insert into stackbone_platform.memory_extraction_settings (guidance_published)"
        " values ('Only remember pets.')"
    )
    memory = open_memory(MemoryStore(pool), memory_config)
    model_server.answer([], "s")
    await memory.add("hi", "support", "u1")
    messages = model_server.requests[0]["messages"]
    assert "Only remember pets." in messages[1]["content"]
    assert "inert data" in messages[0]["content"]  # the protocol is still first and intact


async def test_unreadable_guidance_falls_back_to_built_in_and_says_so(
    pool: asyncpg.Pool, model_server: ModelServer, memory_config: MemoryConfig
) -> None:
    """Guidance that cannot be read: the built-in guidance runs and a warning names the code."""
    await pool.execute(
        "alter table stackbone_platform.memory_extraction_settings"
        " rename column guidance_published to guidance_gone"
    )
    memory = open_memory(MemoryStore(pool), memory_config)
    model_server.answer([], "s")
    with structlog.testing.capture_logs() as logs:
        result = await memory.add("hi", "support", "u1")
    assert result.error is None, result.error
    assert prompt("guidance") in model_server.requests[0]["messages"][1]["content"]
    warnings = [e for e in logs if e["event"] == "memory.guidance_unreadable"]
    assert [w["error_code"] for w in warnings] == ["memory_schema_missing"]


async def test_unreadable_model_selection_fails_the_add_visibly(
    pool: asyncpg.Pool, model_server: ModelServer, memory_config: MemoryConfig
) -> None:
    """The stored model selection cannot be read: the add fails and nothing is sent."""
    await pool.execute(
        "alter table stackbone_platform.memory_extraction_settings rename column model to gone"
    )
    memory = open_memory(MemoryStore(pool), memory_config)
    result = await memory.add("hi", "support", "u1")
    assert result.error is not None and result.error.code == "memory_schema_missing"
    assert model_server.requests == []
