"""`caller-memory docs ingest|list|search|delete` as a separate process, against the test
database and the local embeddings server: JSON on stdout, one line and an exit code on refusal."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from testkit.model_server import ModelServer
from tests.cli.test_caller_memory import run
from tests.documents.conftest import EMBEDDING_MODEL, html_file, pdf_file

RETURNS = "Items can be returned within thirty days of delivery for a full refund."


async def test_ingest_list_search_delete(
    database_url: str, model_server: ModelServer, tmp_path: Path
) -> None:
    env = {
        "DATABASE_URL": database_url,
        "STACKBONE_MEMORY_BASE_URL": model_server.url,
        "STACKBONE_MEMORY_API_KEY": "k",
        "STACKBONE_MEMORY_EMBEDDING_MODEL": EMBEDDING_MODEL,
    }
    pdf = tmp_path / "returns.pdf"
    pdf.write_bytes(pdf_file(RETURNS))
    page = tmp_path / "kettles.html"
    page.write_bytes(html_file("Kettles", "Every kettle boils water quickly."))
    code, out, err = await run("docs", "ingest", str(pdf), "--namespace", "help", env=env)
    assert code == 0, err
    doc = json.loads(out)
    assert (doc["status"], doc["source"], doc["chunkCount"]) == ("ready", "returns.pdf", 1)
    code, out, err = await run("docs", "ingest", str(page), "--namespace", "help", env=env)
    assert code == 0, err

    search = ("docs", "search", "return within thirty days", "--namespace", "help", "--top-k", "1")
    (_, listed, _), (_, documents, _), (code, out, _) = await asyncio.gather(  # reads: together
        run("docs", "list", env=env),
        run("docs", "list", "--namespace", "help", env=env),
        run(*search, env=env),
    )
    assert [c["documents"] for c in json.loads(listed)["collections"]] == [2]
    assert [d["title"] for d in json.loads(documents)["documents"]] == ["Returns policy", "Kettles"]

    found = json.loads(out)
    assert code == 0 and found["model"] == EMBEDDING_MODEL
    [hit] = found["hits"]
    assert hit["document"]["source"] == "returns.pdf" and 0 <= hit["score"] <= 1

    code, out, _ = await run("docs", "delete", doc["id"], env=env)
    assert code == 0 and json.loads(out)["id"] == doc["id"]
    code, out, err = await run("docs", "delete", doc["id"], env=env)
    assert (code, out) == (2, "")
    assert err.startswith("error: rag_not_found: ") and len(err.splitlines()) == 1


async def test_refusals_are_one_line(
    database_url: str, model_server: ModelServer, tmp_path: Path
) -> None:
    env = {
        "DATABASE_URL": database_url,
        "STACKBONE_MEMORY_BASE_URL": model_server.url,
        "STACKBONE_MEMORY_EMBEDDING_MODEL": "",  # set empty: no embedding model
    }
    odd = tmp_path / "notes.doc"
    odd.write_bytes(b"x")
    code, _, err = await run("docs", "ingest", str(odd), env=env)
    assert code == 2 and "pass --type" in err
    text = tmp_path / "notes.txt"
    text.write_text("Some notes.")
    code, _, err = await run("docs", "ingest", str(text), env=env)  # no embedding model
    assert code == 1 and err.startswith("error: rag_unavailable: ")
    assert "Some notes" not in err
