"""The one list of reasons: docs/deployment.md's table names exactly these, each with a fix; the
pure decisions pick the database's reason first, then the model's, and say when writes fail."""

from __future__ import annotations

import re
from pathlib import Path

from memory.search import (
    REASONS,
    SearchAvailability,
    VectorFacts,
    document_vectors_missing,
    search_availability,
    with_model,
    write_problem,
)

DEPLOYMENT = Path(__file__).resolve().parents[2] / "docs" / "deployment.md"
ROW = re.compile(r"^\| `([a-z_]+)` \| [^|]+ \| [^|]+ \|$", re.MULTILINE)


def _facts(**changed: object) -> VectorFacts:
    base: dict[str, object] = {
        "table": True,
        "writable": True,
        "installed": True,
        "available": "0.8.0",
        "hnsw": True,
        "documents": True,
        "missing": None,
    }
    return VectorFacts(**(base | changed))  # type: ignore[arg-type]


def test_the_deployment_table_lists_every_reason_and_no_other() -> None:
    text = DEPLOYMENT.read_text()
    table = text[text.index("One list of reasons") :]
    assert sorted(ROW.findall(table)) == sorted(REASONS)
    assert all(reason.fix and reason.meaning for reason in REASONS.values())


def test_the_database_reason_comes_before_the_model_reason() -> None:
    no_pgvector = _facts(table=False, installed=False, available=None, documents=False)
    found = with_model(search_availability(no_pgvector), None)
    assert found == SearchAvailability("lexical", "vector_extension_missing")
    assert document_vectors_missing(no_pgvector) == "vector_extension_missing"
    assert with_model(search_availability(_facts()), None) == SearchAvailability(
        "lexical", "embedding_model_not_configured"
    )
    assert with_model(search_availability(_facts()), "m") == SearchAvailability("semantic", None)


def test_an_old_pgvector_is_without_hnsw_for_facts_and_documents() -> None:
    old = _facts(table=False, installed=False, available="0.4.4", documents=False)
    assert search_availability(old).reason == "vector_without_hnsw"
    assert document_vectors_missing(old) == "vector_without_hnsw"


def test_writes_fail_for_a_vector_table_of_another_role_or_a_missing_privilege() -> None:
    assert write_problem(_facts()) is None
    assert write_problem(_facts(writable=False)) == "vectors_not_writable"
    assert search_availability(_facts(writable=False)).mode == "lexical"
    missing = _facts(missing="INSERT on table stackbone_platform.memory_facts")
    assert write_problem(missing) == "privilege_missing"
