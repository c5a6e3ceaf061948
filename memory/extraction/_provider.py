"""The call to the OpenAI-compatible model provider: exactly one request, never retried.

`memory.extraction._client` sends the request (auth, timeout, HTTP failures typed); the body is
read here, strictly: a non-JSON content type, a JSON array, or fields of the wrong type are a
provider's bad day, and must be `ModelFailed` here rather than an `AttributeError` deep in the
add.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from memory.config import MemoryConfig, ModelChoice
from memory.contract import InvalidModelOutput, JsonRejected, ModelFailed, loads
from memory.extraction._client import ProviderClient, ProviderRequestFailed

# the provider's envelope is looser than our own JSON (it may nest deeply in fields we ignore)
_ENVELOPE_MAX_DEPTH = 64


@dataclass(frozen=True, slots=True)
class Completion:
    text: str | None
    prompt_tokens: int | None
    completion_tokens: int | None


class _Message(BaseModel):
    model_config = ConfigDict(strict=True)
    content: str | None = None


class _Choice(BaseModel):
    model_config = ConfigDict(strict=True)
    message: _Message
    finish_reason: str | None = None


class _Usage(BaseModel):
    model_config = ConfigDict(strict=True)
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


class _Body(BaseModel):
    model_config = ConfigDict(strict=True)
    choices: list[_Choice]
    usage: _Usage | None = None


def _unusable(rule: str) -> ModelFailed:
    return ModelFailed(f"model provider response unusable: {rule}")


def json_body(content_type: str | None, body: bytes) -> object:
    """A provider's answer body as strict JSON, or `ModelFailed` saying why it is not."""
    if content_type is None or "json" not in content_type.lower():
        raise _unusable("the content type is not JSON")
    try:
        return loads(body.decode("utf-8"), max_depth=_ENVELOPE_MAX_DEPTH)
    except UnicodeDecodeError:
        raise _unusable("the body is not UTF-8") from None
    except JsonRejected as rejected:
        raise _unusable(f"the body JSON was refused: {rejected.rule}") from None


def read_completion(content_type: str | None, body: bytes) -> Completion:
    """The parts of a Chat Completions body an add uses, or a typed failure saying why not."""
    data = json_body(content_type, body)
    try:
        parsed = _Body.model_validate(data)
    except ValidationError as exc:
        first = exc.errors(include_url=False, include_input=False)[0]
        where = ".".join(str(p) for p in first["loc"]) or "body"
        raise _unusable(f"{where}: {first['type']}") from None
    if not parsed.choices:
        raise InvalidModelOutput("model output rejected: the response had no choices")
    choice = parsed.choices[0]
    if choice.finish_reason == "length":
        raise InvalidModelOutput("model output rejected: the response was truncated")
    usage = parsed.usage or _Usage()
    return Completion(choice.message.content, usage.prompt_tokens, usage.completion_tokens)


KEY_VARIABLES = "STACKBONE_MEMORY_API_KEY (or OPENAI_API_KEY)"
MISSING_KEY = f"{KEY_VARIABLES} is not set: the memory model provider needs a key"


def request_failed(what: str, exc: ProviderRequestFailed, keyed: bool) -> ModelFailed:
    """A failed provider request; without a key, the message names the variable to set."""
    hint = "" if keyed else f"; {KEY_VARIABLES} is not set"
    return ModelFailed(f"{what} failed: {exc.kind}{hint}")


def check_key(config: MemoryConfig) -> None:
    """OpenAI itself (no base URL) always needs a key: name the variable, send nothing.

    A keyless request to another endpoint (a local server) is tried; its failure says the key
    is not set.
    """
    if config.api_key is None and config.base_url is None:
        raise ModelFailed(MISSING_KEY)


class ExtractionModel:
    """Chat Completions: one request per extraction, never retried."""

    def __init__(self, config: MemoryConfig) -> None:
        self._config = config
        self._client = ProviderClient(config.base_url, config.api_key, config.timeout_seconds)

    async def complete(
        self,
        choice: ModelChoice,
        messages: Sequence[dict[str, str]],
        response_format: dict[str, Any],
    ) -> Completion:
        check_key(self._config)
        body: dict[str, Any] = {
            "model": choice.provider_model,
            "messages": list(messages),
            "response_format": response_format,
            "reasoning_effort": choice.reasoning_effort,
        }
        try:
            answer = await self._client.post("/chat/completions", body)
        except ProviderRequestFailed as exc:
            keyed = self._config.api_key is not None
            raise request_failed("model provider request", exc, keyed) from None
        return read_completion(answer.content_type, answer.body)

    async def aclose(self) -> None:
        await self._client.aclose()
