"""The call to the OpenAI-compatible model provider: exactly one request, never retried."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import openai

from memory.config import MemoryConfig, ModelChoice
from memory.errors import InvalidModelOutput, ModelFailed


@dataclass(frozen=True, slots=True)
class Completion:
    text: str | None
    prompt_tokens: int | None
    completion_tokens: int | None


class ExtractionModel:
    """Chat Completions with automatic retries turned off."""

    def __init__(self, config: MemoryConfig) -> None:
        self._client = openai.AsyncOpenAI(
            base_url=config.base_url,
            api_key=config.api_key or "not-configured",
            max_retries=0,
            timeout=config.timeout_seconds,
        )

    async def complete(
        self,
        choice: ModelChoice,
        messages: Sequence[dict[str, str]],
        response_format: dict[str, Any],
    ) -> Completion:
        try:
            # plain dicts stand in for the SDK's TypedDicts; the values were built by this package
            response = await self._client.chat.completions.create(  # type: ignore[call-overload]
                model=choice.provider_model,
                messages=list(messages),
                response_format=response_format,
                reasoning_effort=choice.reasoning_effort,
            )
        except openai.APIError as exc:
            raise ModelFailed(f"model provider request failed: {type(exc).__name__}") from exc
        if not response.choices:
            raise InvalidModelOutput("model output rejected: the response had no choices")
        choice0 = response.choices[0]
        if choice0.finish_reason == "length":
            raise InvalidModelOutput("model output rejected: the response was truncated")
        usage = response.usage
        return Completion(
            text=choice0.message.content,
            prompt_tokens=usage.prompt_tokens if usage else None,
            completion_tokens=usage.completion_tokens if usage else None,
        )

    async def aclose(self) -> None:
        await self._client.close()
