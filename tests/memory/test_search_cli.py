"""`python -m memory search` as a separate process: JSON on stdout, errors as envelopes."""

from __future__ import annotations

from pathlib import Path

import pytest

from testkit.model_server import ModelServer
from tests.memory.helpers import add_op
from tests.memory.search_helpers import EMBEDDING_MODEL
from tests.memory.test_cli_and_migrations import cli


@pytest.mark.pgvector
async def test_cli_search_modes(
    database_env: dict[str, str], model_server: ModelServer, tmp_path: Path
) -> None:
    env = {
        **database_env,
        "STACKBONE_MEMORY_BASE_URL": model_server.url,
        "STACKBONE_MEMORY_API_KEY": "k",
        "STACKBONE_MEMORY_EMBEDDING_MODEL": EMBEDDING_MODEL,
    }
    transcript = tmp_path / "call.txt"
    transcript.write_text("Please do not call me again.")
    model_server.answer([add_op("Asked not to be called again.")], "Opted out.")
    code, _ = await cli("add", "support", "+34 600 1", str(transcript), env=env)
    assert code == 0
    assert len(model_server.embedding_requests) == 1  # the add's vectors, before the exit
    code, body = await cli("search", "support", "who asked not to be called", env=env)
    assert code == 0
    assert body["mode"] == "hybrid"
    assert [(i["contact"], i["text"]) for i in body["items"]] == [
        ("+34 600 1", "Asked not to be called again.")
    ]
    code, body = await cli("search", "support", "+34 600", "--mode", "identifier", env=env)
    assert code == 0 and body["items"][0]["contact"] == "+34 600 1"
    code, body = await cli(
        "search",
        "support",
        "called",
        "--user",
        "+34 600 1",
        "--mode",
        "lexical",
        "--k",
        "1",
        env=env,
    )
    assert code == 0 and body["lexicalOnly"] is True
    assert len(body["items"]) == 1
    code, body = await cli("search", "support", "called", "--k", "51", env=env)
    assert code == 2 and body["stderr"].strip().endswith("(field k)")  # one line, exit 2
