"""`search_docs(namespace)`: a ready LiveKit function tool that searches one document collection.

Add it to any agent in one line, next to `CallerMemory`::

    agent = Agent(instructions="...", tools=[search_docs("help-center")])

Each call of the tool runs `Documents.retrieve` (the query embedded once, the nearest chunks of
the collection) within a deadline (`infra.deadline`): past it the model is told at once that
search is unavailable and the work is abandoned to the background, so a slow embeddings server
never holds the agent's reply. The job opens its own small pool on the first search, per event
loop, and closes it when the job shuts down. Logs name the collection and outcome codes, never
the query nor what was found.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import structlog

from callmemory.config import CallConfig, load_call_config
from chat import InvalidArguments, Tool, ToolContext
from infra.database import close_pool, database_url, new_pool
from infra.deadline import Deadline, Late, within
from memory.documents import DEFAULT_NAMESPACE, MAX_QUERY_CHARS, Documents, Hit, Retrieval
from memory.store import DB_ERRORS

if TYPE_CHECKING:  # livekit: imported by the voice tool alone (the web process never needs it)
    from livekit.agents import FunctionTool

log = structlog.get_logger(__name__)

DEFAULT_TOOL_TOP_K = 3
DEFAULT_TOOL_SECONDS = 2.0
"""How long one search may take, pool connection and embedding request included."""
UNAVAILABLE = "Document search is unavailable right now; answer without it and say so if needed."
NO_MATCH = "No matching passage was found in the documents."
DESCRIPTION = (
    "Search the documents (policies, help articles, product sheets) for passages that answer"
    " the caller's question. Call it before answering such a question and answer from what it"
    " returns."
)
POOL_MAX = 2
CLOSE_SECONDS = 2.0


def render(found: Retrieval) -> str:
    """The hits as the model reads them: best first, score and title before each passage."""
    if not found.hits:
        return NO_MATCH
    return "\n\n".join(
        f"[{hit.score:.2f}] {hit.document.title}: {hit.content}" for hit in found.hits
    )


@dataclass
class _PerLoop:
    """One `Documents` (and its pool) per event loop: a job's loop, or the caller's own."""

    config: CallConfig | None
    opened: dict[asyncio.AbstractEventLoop, Documents] = field(default_factory=dict)

    async def documents(self) -> Documents:
        loop = asyncio.get_running_loop()
        if (found := self.opened.get(loop)) is not None:
            return found
        config = self.config or load_call_config()  # a job reads its own environment
        url = database_url(config.database_url, config.data_dir)
        pool = new_pool(url, min_size=1, max_size=POOL_MAX, timeouts=config.database)
        try:
            await pool
        except BaseException:
            pool.terminate()
            raise
        docs = Documents(pool, config.memory)
        self.opened[loop] = docs
        from livekit.agents import get_job_context  # noqa: PLC0415  (a voice job's own)

        with contextlib.suppress(RuntimeError):  # outside a job: the caller's loop owns it
            get_job_context().add_shutdown_callback(lambda: self._close(loop))
        return docs

    async def _close(self, loop: asyncio.AbstractEventLoop) -> None:
        docs = self.opened.pop(loop, None)
        if docs is not None:
            await docs.aclose(grace_seconds=0)
            await close_pool(docs.pool, CLOSE_SECONDS)


def search_docs(
    namespace: str = DEFAULT_NAMESPACE,
    *,
    top_k: int = DEFAULT_TOOL_TOP_K,
    deadline_seconds: float = DEFAULT_TOOL_SECONDS,
    name: str = "search_docs",
    description: str = DESCRIPTION,
    config: CallConfig | None = None,
) -> FunctionTool[[str], Coroutine[Any, Any, str]]:
    """A function tool searching the collection `namespace`; `config` None: the job's
    environment (the same variables as `CallerMemory`, with `STACKBONE_MEMORY_EMBEDDING_MODEL`)."""
    opened = _PerLoop(config)

    async def retrieve(query: str) -> str:
        try:
            docs = await opened.documents()
        except DB_ERRORS as exc:
            log.warning("documents.tool_failed", namespace=namespace, error_type=type(exc).__name__)
            return UNAVAILABLE
        result = await docs.retrieve(query, top_k, namespace)
        if result.error is not None:
            log.warning("documents.tool_failed", namespace=namespace, error_code=result.error.code)
            return UNAVAILABLE
        assert result.data is not None
        return render(result.data)

    async def search(query: str) -> str:
        try:
            return await within(
                Deadline.after(deadline_seconds), retrieve(query), step="documents.search"
            )
        except Late:
            log.warning("documents.tool_late", namespace=namespace, seconds=deadline_seconds)
            return UNAVAILABLE

    search.__doc__ = f"""{description}

        Args:
            query: the caller's question, in a few words
        """
    from livekit.agents import function_tool  # noqa: PLC0415  (the voice tool alone)

    return function_tool(search, name=name, description=description)


def docs_text_tool(
    documents: Documents,
    collections: Sequence[str],
    *,
    top_k: int = DEFAULT_TOOL_TOP_K,
    deadline_seconds: float = DEFAULT_TOOL_SECONDS,
) -> Tool:
    """`search_docs` for text turns over the agent's collections, on the web process's own
    `Documents`: the best `top_k` passages of all the collections, rendered as on voice."""

    async def run(_: ToolContext, raw_arguments: str) -> str:
        query = _query(raw_arguments)
        hits: list[Hit] = []
        for namespace in collections:
            result = await documents.retrieve(query, top_k, namespace)
            if result.error is not None or result.data is None:
                log.warning("documents.tool_failed", namespace=namespace, error_code=_code(result))
                return UNAVAILABLE
            hits.extend(result.data.hits)
        best = sorted(hits, key=lambda hit: hit.score, reverse=True)[:top_k]
        return render(Retrieval(",".join(collections), "", tuple(best)))

    parameters = {
        "type": "object",
        "properties": {"query": {"type": "string", "description": "the question, in a few words"}},
        "required": ["query"],
    }
    return Tool("search_docs", DESCRIPTION, parameters, run, deadline_seconds, "documents")


def _query(raw_arguments: str) -> str:
    try:
        value = json.loads(raw_arguments or "{}")
    except ValueError:
        raise InvalidArguments("arguments: must be a JSON object") from None
    query = value.get("query") if isinstance(value, dict) else None
    if not isinstance(query, str) or not query.strip():
        raise InvalidArguments("query: must be a non-blank string")
    if len(query) > MAX_QUERY_CHARS:
        raise InvalidArguments(f"query: at most {MAX_QUERY_CHARS} characters")
    return query


def _code(result: Any) -> str:
    return "rag_unavailable" if result.error is None else str(result.error.code)
