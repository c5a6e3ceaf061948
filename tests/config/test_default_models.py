"""Defaults that work: a provider key alone gives search by meaning and documents (the default
embedding model, `openai/text-embedding-3-small`), `STACKBONE_MEMORY_EMBEDDING_MODEL=` (set
empty) turns them off, and `provider/model` names follow one rule everywhere a model is named.

The provider is the local stand-in (`OPENAI_BASE_URL`): no test needs the network."""

from __future__ import annotations

from pathlib import Path

import asyncpg
import pytest

from callmemory import environment
from callmemory.config import memory_config
from chat.config import ChatConfig
from chat.model import ConversationModel
from memory.api import open_memory
from memory.config import DEFAULT_EMBEDDING_MODEL, MemoryConfig, provider_model
from memory.documents import Documents
from memory.store._facts import MemoryStore
from testkit.model_server import ModelServer
from tests.memory.search_helpers import lexical_reason, remember, texts
from worker.config import worker_config

VARIABLE = "STACKBONE_MEMORY_EMBEDDING_MODEL"
POLICY = b"# Returns\n\nItems can be returned within thirty days of delivery.\n"


def key_alone(server: ModelServer, **more: str) -> MemoryConfig:
    """The memory configuration of a process given only a key (and the stand-in's address)."""
    return memory_config(
        environment.read({"OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": server.url, **more})
    )


@pytest.mark.parametrize(
    ("configured", "sent"),
    [
        ("openai/text-embedding-3-small", "text-embedding-3-small"),
        ("openai/gpt-5.6-luna", "gpt-5.6-luna"),
        ("gpt-4.1-mini", "gpt-4.1-mini"),
        ("acme/llama-3", "acme/llama-3"),  # a gateway's own prefix: sent as written
        ("OpenAI/gpt-4.1", "OpenAI/gpt-4.1"),  # the prefix is lower-case, exactly
        ("openai/acme/x", "acme/x"),  # one prefix removed, once
    ],
)
def test_one_rule_for_provider_model_names(configured: str, sent: str) -> None:
    assert provider_model(configured) == sent


def test_the_default_is_the_seeds_model_and_empty_turns_it_off(tmp_path: Path) -> None:
    assert environment.read({}).memory_embedding_model == DEFAULT_EMBEDDING_MODEL
    assert memory_config(environment.read({})).embedding_model == "openai/text-embedding-3-small"
    for empty in ("", "   "):
        assert memory_config(environment.read({VARIABLE: empty})).embedding_model is None
    assert memory_config(environment.read({VARIABLE: " m "})).embedding_model == "m"
    # the same from `.env.local`: an empty line there sets the variable empty
    (tmp_path / ".env.local").write_text(f"{VARIABLE}=\nSTACKBONE_MEMORY_MODEL=\n")
    environ: dict[str, str] = {}
    environment.load_env_local(tmp_path / ".env.local", environ)
    settings = environment.read(environ)
    assert memory_config(settings).embedding_model is None
    assert settings.memory_model is None  # any other empty variable is still unset


@pytest.mark.pgvector
async def test_a_key_alone_searches_by_meaning_and_reads_documents(
    pool: asyncpg.Pool, model_server: ModelServer
) -> None:
    config = key_alone(model_server)
    memory = open_memory(MemoryStore(pool), config)
    try:
        await remember(memory, model_server, "u1", "Asked not to be called again.")
        found = await memory.search("support", "who asked not to be called?", mode="semantic")
    finally:
        await memory.aclose()
    assert found.data is not None and found.data.mode == "semantic", found.error
    assert texts(found) == ["Asked not to be called again."]
    docs = Documents(pool, config)
    try:
        ingested = await docs.ingest(POLICY, source="returns.md", content_type="text/markdown")
        assert ingested.error is None, ingested.error
        retrieved = await docs.retrieve("can I return my kettle?")
    finally:
        await docs.aclose()
    assert retrieved.data is not None and "thirty days" in retrieved.data.hits[0].content
    # the name sent is the model's own: the `openai/` prefix names the endpoint
    assert {r["model"] for r in model_server.embedding_requests} == {"text-embedding-3-small"}


async def test_set_empty_search_is_lexical_and_documents_unavailable(
    pool: asyncpg.Pool, model_server: ModelServer
) -> None:
    config = key_alone(model_server, **{VARIABLE: ""})
    memory = open_memory(MemoryStore(pool), config)
    try:
        await remember(memory, model_server, "u1", "Has a cat.")
        result = await memory.search("support", "cat")
    finally:
        await memory.aclose()
    assert result.data is not None
    assert (result.data.mode, result.data.lexical_only, result.data.reason) == (
        "lexical",
        True,
        await lexical_reason(pool),
    )
    docs = Documents(pool, config)
    try:
        refused = await docs.ingest(POLICY, source="returns.md", content_type="text/markdown")
    finally:
        await docs.aclose()
    assert refused.error is not None and refused.error.code == "rag_unavailable"
    assert model_server.embedding_requests == []


async def test_the_conversation_models_are_sent_by_the_same_rule(
    model_server: ModelServer,
) -> None:
    model = ConversationModel(
        ChatConfig(base_url=model_server.url, api_key="k", model="openai/gpt-4.1-mini")
    )
    try:
        for _ in range(3):
            model_server.answer_text("Hello.")
        await model.step([{"role": "user", "content": "Hi"}], None)
        await model.step([{"role": "user", "content": "Hi"}], None, model="openai/gpt-4.1")
        await model.step([{"role": "user", "content": "Hi"}], None, model="acme/llama-3")
    finally:
        await model.aclose()
    assert [r["model"] for r in model_server.requests] == [
        "gpt-4.1-mini",
        "gpt-4.1",
        "acme/llama-3",
    ]
    voice = worker_config(
        environment.read(
            {
                "OPENAI_API_KEY": "k",
                "VOICE_LLM_MODEL": "openai/gpt-4.1-mini",
                "VOICE_STT_MODEL": "openai/gpt-4o-mini-transcribe",
                "VOICE_TTS_MODEL": "acme/tts",
            }
        )
    ).models
    assert (voice.llm, voice.stt, voice.tts) == (
        "gpt-4.1-mini",
        "gpt-4o-mini-transcribe",
        "acme/tts",
    )
