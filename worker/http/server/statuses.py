"""Error codes to HTTP statuses: the one place the API decides which status a failure gets.

The memory core and the web layer raise typed failures that carry a code; the one translation
(`worker.http.server.errors`) asks this module for the status and answers with the code in the body.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

INTERNAL_ERROR = "internal_error"

STATUSES: Mapping[str, int] = MappingProxyType(
    {
        # memory core
        "memory_invalid_request": 400,
        "memory_model_failed": 502,
        "memory_invalid_model_output": 502,
        "memory_conflict": 409,
        "memory_persist_failed": 503,
        "memory_schema_missing": 503,
        "memory_unavailable": 503,
        "capability_unavailable": 503,
        # adds over HTTP with an Idempotency-Key
        "idempotency_key_reused": 409,
        "idempotency_key_in_progress": 409,
        # document collections
        "rag_invalid_request": 400,
        "rag_too_large": 413,
        "rag_unsupported_type": 415,
        "rag_unreadable_document": 422,
        "rag_parse_timeout": 422,
        "rag_not_found": 404,
        "rag_model_mismatch": 409,
        "rag_model_failed": 502,
        "rag_persist_failed": 503,
        "rag_schema_missing": 503,
        "rag_unavailable": 503,
        "cursor_expired": 410,
        # web layer
        "unauthorized": 401,
        "forbidden": 403,
        "agent_not_found": 404,
        "not_found": 404,
        "method_not_allowed": 405,
        "bad_request": 400,
        "payload_too_large": 413,
        "unsupported_media_type": 415,
        "request_timeout": 408,
        "client_closed_request": 499,  # nginx's: the client left; no one reads the answer
        "server_busy": 503,
        "export_busy": 429,  # as many exports stream as the process allows (WEB_MAX_EXPORTS)
        # voice calls
        "invalid_identities": 400,
        "invalid_destination": 400,
        "livekit_failed": 502,
        "voice_not_configured": 503,
        # chat wire and sessions
        "model_not_found": 404,
        "agent_not_loaded": 503,
        "session_busy": 409,
        # held tools
        "decision_pending": 409,
        "decision_taken": 409,
        "decision_not_found": 404,
        "session_required": 400,
        "invalid_decision": 400,
        "session_not_found": 404,
        "chat_model_failed": 502,
        "chat_model_timeout": 504,
        INTERNAL_ERROR: 500,
    }
)


def status_for(code: str) -> int:
    """The status for an error code; an unmapped code is a server error."""
    return STATUSES.get(code, 500)


_RAISED_BY_AIOHTTP: Mapping[int, str] = MappingProxyType(
    {400: "bad_request", 404: "not_found", 405: "method_not_allowed", 413: "payload_too_large"}
)


def code_for_status(status: int) -> str:
    """The code for a status aiohttp raised itself (an unknown route, a wrong method)."""
    return _RAISED_BY_AIOHTTP.get(status, INTERNAL_ERROR if status >= 500 else "bad_request")
