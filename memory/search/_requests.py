"""Validation of a search request, before any query or model call.

Pure functions over plain values, in the style of `memory.contract.requests`: each failure is an
`InvalidRequest` naming the field and the rule, never quoting the query.
"""

from __future__ import annotations

from typing import Final

from memory.contract import InvalidRequest, requests
from memory.search._models import SEARCH_MODES, SearchMode, SearchRequest

MAX_QUERY_CHARS: Final = 500
MIN_K: Final = 1
MAX_K: Final = 50
DEFAULT_K: Final = 10
DEFAULT_MODE: Final[SearchMode] = "hybrid"


def _fail(field: str, rule: str) -> InvalidRequest:
    return InvalidRequest(f"{field}: {rule}", field=field)


def query(value: object, mode: SearchMode) -> str:
    if not isinstance(value, str):
        raise _fail("query", "must be a string")
    if "\x00" in value:
        raise _fail("query", "must not contain NUL characters")
    if len(value) > MAX_QUERY_CHARS:
        raise _fail("query", f"must have at most {MAX_QUERY_CHARS} characters")
    if not value.strip():
        raise _fail("query", "must not be blank")
    if mode != "identifier" and not any(ch.isalnum() for ch in value):
        raise _fail("query", "must contain a letter or a digit")
    return value


def k(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _fail("k", "must be an integer")
    if not MIN_K <= value <= MAX_K:
        raise _fail("k", f"must be between {MIN_K} and {MAX_K}")
    return value


def mode(value: object) -> SearchMode:
    if value not in SEARCH_MODES:
        raise _fail("mode", f"must be one of {', '.join(SEARCH_MODES)}")
    return value


def search_request(
    agent_id: object, query_text: object, user_id: object, k_value: object, mode_value: object
) -> SearchRequest:
    """A whole request, checked field by field in the order a caller reads them."""
    agent = requests.agent_id(agent_id)
    chosen = mode(mode_value)
    text = query(query_text, chosen)
    user = None if user_id is None else requests.user_id(user_id)
    if user is not None and chosen == "identifier":
        raise _fail("user_id", "must be omitted in identifier mode (it searches contacts)")
    return SearchRequest(agent_id=agent, query=text, user_id=user, k=k(k_value), mode=chosen)
