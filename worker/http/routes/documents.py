"""Document collections over HTTP: list, upload, download the original, delete and search.

An upload is the document's own bytes as the body, its type in `Content-Type` (one of
`memory.documents.CONTENT_TYPES`), `source` and an optional `title` in the query. The body is
read here, not by aiohttp: a declared or received size past `MAX_DOCUMENT_BYTES` is refused at
once (413), within the body deadline. Everything is checked and the text extracted (within the
parse bound, `rag_parse_timeout` past it; the database deadline covers database steps only)
before anything is written, so a refused upload leaves nothing; an accepted one answers 202 with the
document `pending` and is embedded in the background (poll the document for `ready` or
`failed`). The search query travels in the JSON body, never in the URL.
"""

from __future__ import annotations

import asyncio

from aiohttp import web
from pydantic import BaseModel, ConfigDict, Field

from memory.documents import (
    CONTENT_TYPES,
    DEFAULT_TOP_K,
    MAX_DOCUMENT_BYTES,
    RagTooLarge,
)
from worker.http.server import answers
from worker.http.server.context import DOCUMENTS, Route, database_bound, respond, unwrap
from worker.http.server.request_body import BodyTimedOut, ClientGone, parse_body, read_json
from worker.http.server.serving import LIMITS

COLLECTIONS = "/api/documents/collections"
COLLECTION = COLLECTIONS + "/{namespace}"
DOCUMENT = "/api/documents/documents/{documentId}"
READ_CHUNK = 64 * 1024


class DocsSearchBody(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    query: str  # the documents API checks the limits and names the field
    top_k: int = Field(default=DEFAULT_TOP_K, alias="topK")


def _too_large() -> RagTooLarge:
    return RagTooLarge(f"document: at most {MAX_DOCUMENT_BYTES} bytes", field="document")


async def read_upload(request: web.Request) -> bytes:
    """The body, at most `MAX_DOCUMENT_BYTES`, within the body deadline."""
    if request.content_length is not None and request.content_length > MAX_DOCUMENT_BYTES:
        raise _too_large()
    seconds = request.app[LIMITS].body_timeout_seconds
    received = bytearray()
    try:
        async with asyncio.timeout(seconds):
            async for piece in request.content.iter_chunked(READ_CHUNK):
                received += piece
                if len(received) > MAX_DOCUMENT_BYTES:
                    raise _too_large()
    except TimeoutError:
        raise BodyTimedOut(seconds) from None
    except ConnectionResetError:  # gone before the whole document arrived
        raise ClientGone() from None
    return bytes(received)


async def list_collections(request: web.Request) -> web.Response:
    found = unwrap(await request.app[DOCUMENTS].collections())
    return respond(answers.Collections.of(found).wire())


async def list_documents(request: web.Request) -> web.Response:
    namespace = request.match_info["namespace"]
    found = unwrap(await request.app[DOCUMENTS].documents(namespace))
    return respond(answers.DocumentList.of(namespace, found).wire())


async def upload(request: web.Request) -> web.Response:
    raw = await read_upload(request)  # the body's own deadline; then the database's
    ingest = request.app[DOCUMENTS].ingest(
        raw,
        source=request.query.get("source"),
        title=request.query.get("title"),
        content_type=request.headers.get("Content-Type"),
        namespace=request.match_info["namespace"],
        wait=False,
        database=database_bound(request),  # each database step; reading has its own bound
    )
    doc = unwrap(await ingest)  # capability check, read, collection, pending row
    return respond(answers.DocumentItem.of(doc).wire(), status=202)


async def get_document(request: web.Request) -> web.Response:
    doc = unwrap(await request.app[DOCUMENTS].document(request.match_info["documentId"]))
    return respond(answers.DocumentItem.of(doc).wire())


async def download(request: web.Request) -> web.Response:
    original = unwrap(await request.app[DOCUMENTS].original(request.match_info["documentId"]))
    return web.Response(
        body=original.body,
        content_type=original.document.content_type,
        headers={
            "Content-Disposition": f'attachment; filename="{original.document.id}"',
            "Cache-Control": "no-store",
            "Content-Security-Policy": "sandbox",  # an uploaded page never runs as ours
        },
    )


async def delete_document(request: web.Request) -> web.Response:
    doc = unwrap(await request.app[DOCUMENTS].delete(request.match_info["documentId"]))
    return respond(answers.DocumentItem.of(doc).wire())


async def search(request: web.Request) -> web.Response:
    """Each database step within the database deadline, the query's embedding within the
    model's own timeout: a slow model is `rag_model_failed`, never `rag_unavailable`."""
    body = parse_body(DocsSearchBody, await read_json(request))
    namespace, database = request.match_info["namespace"], database_bound(request)
    docs = request.app[DOCUMENTS]
    found = unwrap(await docs.retrieve(body.query, body.top_k, namespace, database=database))
    return respond(answers.DocumentSearch.of(found).wire())


ROUTES = (
    Route(
        "GET",
        COLLECTIONS,
        list_collections,
        "documents:read",
        agents="shared",
        family="documents",
        answers=((200, answers.Collections),),
        summary="Every document collection with its embedding model",
    ),
    Route(
        "GET",
        f"{COLLECTION}/documents",
        list_documents,
        "documents:read",
        agents="shared",
        family="documents",
        answers=((200, answers.DocumentList),),
        summary="The documents of one collection with their ingest status",
    ),
    Route(
        "POST",
        f"{COLLECTION}/documents",
        upload,
        "documents:write",
        agents="shared",
        family="documents",
        deadline="own",  # the body within its own deadline, reading and chunking within
        # theirs, each database step within the database deadline; embedding in the background
        answers=((202, answers.DocumentItem),),
        query=("source", "title"),
        upload=CONTENT_TYPES,
        summary="Upload a document (or replace the one of the same source); ingested after",
    ),
    Route(
        "POST",
        f"{COLLECTION}/search",
        search,
        "documents:read",
        agents="shared",
        family="documents",
        body=DocsSearchBody,
        deadline="own",  # the database's steps within the deadline, the model's within its own
        answers=((200, answers.DocumentSearch),),
        summary="The search the agents' tool runs: nearest chunks with scores and metadata",
    ),
    Route(
        "GET",
        DOCUMENT,
        get_document,
        "documents:read",
        agents="shared",
        family="documents",
        answers=((200, answers.DocumentItem),),
        summary="One document's metadata and status",
    ),
    Route(
        "GET",
        f"{DOCUMENT}/original",
        download,
        "documents:read",
        agents="shared",
        family="documents",
        download=CONTENT_TYPES,
        summary="The original bytes as uploaded",
    ),
    Route(
        "DELETE",
        DOCUMENT,
        delete_document,
        "documents:write",
        agents="shared",
        family="documents",
        answers=((200, answers.DocumentItem),),
        summary="Delete a document with its original, chunks and vectors",
    ),
)
