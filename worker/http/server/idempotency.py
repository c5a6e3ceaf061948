"""The `Idempotency-Key` of adds over HTTP: the header's rule, a body's digest, and what a key
another request holds means for this one. Pure; the rows are `memory.store`'s
(`claim_key`, `keep_answer`, `release_key`).

A key is scoped to the agent and the person: the same key for another person is another key.
Within 24 hours (`memory.store.KEY_LIFE_SECONDS`) the same key and body get the first answer
again without a model call; another body under the key is `409 idempotency_key_reused`; while
the first request runs, `409 idempotency_key_in_progress` (retry after it ended). A claim whose
request died without an answer or a release is taken over after `STALE_AFTER_SECONDS`.
"""

from __future__ import annotations

import hashlib
import re
from typing import ClassVar, Final

from multidict import CIMultiDictProxy
from pydantic import BaseModel

from memory.contract import CodedError, InvalidRequest, strict_json
from memory.store import Found

HEADER: Final = "Idempotency-Key"
MAX_KEY_CHARS: Final = 200
KEY_RULE: Final = f"must be 1 to {MAX_KEY_CHARS} printable ASCII characters"
_KEY: Final = re.compile(rf"[\x20-\x7e]{{1,{MAX_KEY_CHARS}}}")
STALE_AFTER_SECONDS: Final = 600.0
"""A claim without an answer this old is taken over: far past the longest an add takes (the
extraction model's timeout, 30 s by default, plus a few database deadlines)."""
REPLAYED: Final = "Idempotent-Replayed"
"""Set to `true` on an answer given again for a retried key."""


class KeyReused(CodedError):
    """The key was used for another body of the same agent and person (409): never retried."""

    code: ClassVar[str] = "idempotency_key_reused"

    def __init__(self) -> None:
        super().__init__(
            f"{HEADER}: already used with another body for this agent and person", field=HEADER
        )


class KeyInProgress(CodedError):
    """Another request with the same key is running (409): retry once it ended."""

    code: ClassVar[str] = "idempotency_key_in_progress"

    def __init__(self) -> None:
        super().__init__(
            f"{HEADER}: a request with this key is still running; retry once it ended",
            field=HEADER,
        )


def idempotency_key(headers: CIMultiDictProxy[str]) -> str | None:
    """The request's key (None without the header); a 400 naming the header when it breaks
    the rule or comes more than once."""
    values = headers.getall(HEADER, [])
    if not values:
        return None
    if len(values) > 1:
        raise InvalidRequest(f"{HEADER}: send it once", field=HEADER)
    if not _KEY.fullmatch(values[0]):
        raise InvalidRequest(f"{HEADER}: {KEY_RULE}", field=HEADER)
    return values[0]


def body_digest(body: BaseModel) -> str:
    """The digest of a validated body: the same fields and values give the same digest,
    whatever their order, spacing or an explicit `null` for a left-out optional field."""
    canonical = strict_json.utf8_json(body.model_dump(mode="json", by_alias=True), sort_keys=True)
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()


def replayed(found: Found | None, digest: str) -> str:
    """The first answer's JSON text for a key another request claimed; `KeyReused` for another
    body, `KeyInProgress` while the first request runs (None: it claimed the key meanwhile)."""
    if found is not None and found.body_digest != digest:
        raise KeyReused()
    if found is None or found.answer is None:
        raise KeyInProgress()
    return found.answer
