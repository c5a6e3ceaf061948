"""`caller-memory docs ...`: ingest, list, delete and search document collections.

Each prints the HTTP API's body for the same request
(`worker.http.server.answers`) as JSON on stdout. `ingest` waits until the document is
`ready` (or says why it failed). Logs carry no document text and no query.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import asyncpg
import typer

from memory.config import MemoryConfig
from memory.contract import Result
from memory.documents import DEFAULT_NAMESPACE, DEFAULT_TOP_K, Documents
from worker.http.server import answers
from worker.memory_commands import run_with_pool
from worker.refusal import EXIT_USAGE, Refused, refused

T = TypeVar("T")
docs_app = typer.Typer(
    help="Operate on document collections directly (JSON on stdout).", no_args_is_help=True
)
Namespace = Annotated[str, typer.Option(help="the collection")]
TYPES_BY_SUFFIX = {
    ".pdf": "application/pdf",
    ".md": "text/markdown",
    ".markdown": "text/markdown",
    ".html": "text/html",
    ".htm": "text/html",
    ".txt": "text/plain",
}


def _with_documents(
    call: Callable[[Documents], Awaitable[Result[T]]], answer: Callable[[T], answers.Answer]
) -> None:
    async def work(pool: asyncpg.Pool, config: MemoryConfig) -> dict[str, Any]:
        docs = Documents(pool, config)
        try:
            result = await call(docs)
        finally:
            await docs.aclose()
        if result.error is not None:
            raise refused(result.error)
        assert result.data is not None
        return answer(result.data).wire()

    run_with_pool(work)


def _read(path: Path, content_type: str | None) -> tuple[bytes, str]:
    media = content_type or TYPES_BY_SUFFIX.get(path.suffix.lower())
    if media is None:
        raise Refused(
            EXIT_USAGE, f"content type: unknown for {path.suffix or 'no suffix'}; pass --type"
        )
    try:
        return path.read_bytes(), media
    except OSError as exc:
        raise Refused(EXIT_USAGE, f"document: cannot read {path} ({type(exc).__name__})") from None


@docs_app.command()
def ingest(
    path: Annotated[Path, typer.Argument(help="a .pdf, .md, .html or .txt file")],
    namespace: Namespace = DEFAULT_NAMESPACE,
    source: Annotated[str | None, typer.Option(help="the source (default: the file name)")] = None,
    title: Annotated[str | None, typer.Option(help="the title (default: the document's)")] = None,
    content_type: Annotated[str | None, typer.Option("--type", help="the media type")] = None,
) -> None:
    """Add a document to a collection, or replace the one of the same source."""
    raw, media = _read(path, content_type)
    _with_documents(
        lambda d: d.ingest(
            raw, source=source or path.name, content_type=media, namespace=namespace, title=title
        ),
        answers.DocumentItem.of,
    )


@docs_app.command("list")
def list_documents(
    namespace: Annotated[
        str | None, typer.Option(help="the collection (default: every collection)")
    ] = None,
) -> None:
    """List the collections, or one collection's documents with their status."""
    if namespace is None:
        _with_documents(lambda d: d.collections(), answers.Collections.of)
        return
    _with_documents(
        lambda d: d.documents(namespace), lambda found: answers.DocumentList.of(namespace, found)
    )


@docs_app.command()
def delete(document_id: Annotated[str, typer.Argument(help="the document's id")]) -> None:
    """Delete a document with its original, chunks and vectors."""
    _with_documents(lambda d: d.delete(document_id), answers.DocumentItem.of)


@docs_app.command()
def search(
    query: Annotated[str, typer.Argument(help="the question")],
    namespace: Namespace = DEFAULT_NAMESPACE,
    top_k: Annotated[int, typer.Option("--top-k", help="hits to return")] = DEFAULT_TOP_K,
) -> None:
    """Run the search the agents' tool runs: nearest chunks with scores and metadata."""
    _with_documents(lambda d: d.retrieve(query, top_k, namespace), answers.DocumentSearch.of)
