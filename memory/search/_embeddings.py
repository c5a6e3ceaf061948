"""Embeddings from the OpenAI-compatible provider: one request per batch, never retried.

The dimension is fixed by the schema (`vector(512)` in migration 0004) and asked of the provider
with the `dimensions` parameter; a vector of another length is rejected, never padded or cut.
Vectors travel to Postgres as pgvector text literals, so no type codec is registered on
connections. A fact holding a NUL or a lone surrogate (a model wrote it) is embedded as it reads:
a NUL as a space (a word break, as the text index reads it) and a lone surrogate as U+FFFD, which
every provider's JSON parser accepts.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from memory.config import MemoryConfig, provider_model
from memory.contract import InvalidModelOutput
from memory.extraction import (
    ProviderClient,
    ProviderRequestFailed,
    check_key,
    json_body,
    request_failed,
)

EMBEDDING_DIMENSIONS = 512
MAX_BATCH = 64  # texts per embedding request
_LONE = re.compile("[\ud800-\udfff]")


def embedding_input(text: str) -> str:
    """`text` as the provider is sent it: a NUL as a space, a lone surrogate as U+FFFD."""
    return _LONE.sub("\ufffd", text.replace("\x00", " "))


def vector_literal(values: object) -> str:
    """A checked embedding as a pgvector literal: exactly 512 finite numbers."""
    if not isinstance(values, list | tuple):
        raise InvalidModelOutput("embedding rejected: not a list of numbers")
    if len(values) != EMBEDDING_DIMENSIONS:
        raise InvalidModelOutput(
            f"embedding rejected: {len(values)} dimensions, the schema holds {EMBEDDING_DIMENSIONS}"
        )
    if not all(_number(v) for v in values):
        raise InvalidModelOutput("embedding rejected: values must be finite numbers")
    return "[" + ",".join(repr(float(v)) for v in values) + "]"


def vectors(body: object, expected: int) -> tuple[str, ...]:
    """The response's vectors in input order; anything but one valid vector per input fails."""
    data = body.get("data") if isinstance(body, dict) else None
    if not isinstance(data, list) or not all(isinstance(item, dict) for item in data):
        raise InvalidModelOutput("embedding rejected: the response had no data list")
    if not all(type(item.get("index")) is int for item in data):
        raise InvalidModelOutput("embedding rejected: every vector needs an integer index")
    by_index = {item.get("index"): item.get("embedding") for item in data}
    if len(data) != expected or sorted(by_index) != list(range(expected)):
        raise InvalidModelOutput("embedding rejected: one vector per input was expected")
    return tuple(vector_literal(by_index[i]) for i in range(expected))


def _number(value: object) -> bool:
    return isinstance(value, float | int) and not isinstance(value, bool) and math.isfinite(value)


class EmbeddingModel:
    """The provider's embeddings endpoint: one request per batch, never retried."""

    def __init__(self, config: MemoryConfig) -> None:
        # the id sent, which vectors and collections record: `openai/x` and `x` are one model
        named = config.embedding_model
        self.model = None if named is None else provider_model(named)
        self._config = config
        self._client = ProviderClient(
            config.base_url, config.api_key, config.embedding_timeout_seconds
        )

    async def embed(self, texts: Sequence[str]) -> tuple[str, ...]:
        """One request for up to `MAX_BATCH` texts; vector literals in the same order."""
        assert self.model is not None and 0 < len(texts) <= MAX_BATCH
        check_key(self._config)
        body = {
            "model": self.model,
            "input": [embedding_input(t) for t in texts],
            "dimensions": EMBEDDING_DIMENSIONS,
            "encoding_format": "float",
        }
        try:
            answer = await self._client.post("/embeddings", body)
        except ProviderRequestFailed as exc:
            keyed = self._config.api_key is not None
            raise request_failed("embedding request", exc, keyed) from None
        return vectors(json_body(answer.content_type, answer.body), len(texts))

    async def aclose(self) -> None:
        await self._client.aclose()
