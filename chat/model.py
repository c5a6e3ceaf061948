"""The conversation model of a text turn: one Chat Completions request per step.

A streamed step (`stream_step`) requests the model with `stream: true` and hands each text delta
to the caller's relay as it arrives; tool-call deltas are joined into whole calls. When the
relay fails (the client went away) the model's stream is closed at once, which ends the model
request, and the relay's error propagates unchanged.

The official `openai` client talks to any OpenAI-compatible endpoint; it never retries (a turn
that half-ran a tool must not be replayed by a client library) and each request has the
configured timeout. Failures become `ChatModelFailed` or `ChatModelTimeout`, whose messages
name no model output.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, ClassVar

import openai
from openai.types.chat import ChatCompletion, ChatCompletionChunk

from chat.config import ChatConfig
from chat.turn_result import ToolCall
from memory.config import provider_model
from memory.contract import CodedError
from memory.extraction import ProviderClient, ProviderRequestFailed


class ChatModelFailed(CodedError):
    """The conversation model refused or failed the request (502)."""

    code: ClassVar[str] = "chat_model_failed"

    def __init__(self, message: str) -> None:
        super().__init__(message)


@contextmanager
def _failures() -> Iterator[None]:
    """The model client's failures as ours; any other error (the relay's) passes unchanged."""
    try:
        yield
    except openai.APITimeoutError:
        raise ChatModelTimeout("the conversation model did not answer in time") from None
    except openai.APIStatusError as exc:
        raise ChatModelFailed(f"the conversation model answered {exc.status_code}") from None
    except openai.APIError as exc:
        raise ChatModelFailed(f"the conversation model failed ({type(exc).__name__})") from None


class ChatModelTimeout(ChatModelFailed):
    """The conversation model did not answer within CHAT_TIMEOUT_SECONDS (504)."""

    code = "chat_model_timeout"


@dataclass(frozen=True, slots=True)
class Step:
    """One model answer: text, or tool calls, and its tokens."""

    content: str | None
    tool_calls: tuple[ToolCall, ...]
    prompt_tokens: int
    completion_tokens: int
    finish_reason: str = "stop"


Relay = Callable[[str], Awaitable[None]]
"""Where a streamed step's text deltas go, in order, as they arrive."""


class ConversationModel:
    def __init__(self, config: ChatConfig) -> None:
        self._config = config
        self._client: openai.AsyncOpenAI | None = None  # streamed answers (its SSE reading)
        self._plain: ProviderClient | None = None  # plain answers

    def _openai(self) -> openai.AsyncOpenAI:
        if self._client is None:  # built on first use: an unconfigured key fails per turn
            self._client = openai.AsyncOpenAI(
                base_url=self._config.base_url,
                api_key=self._config.api_key or "not-configured",
                max_retries=0,
                timeout=self._config.timeout_seconds,
            )
        return self._client

    def _body(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        options: dict[str, Any],
        *,
        stream: bool,
    ) -> dict[str, Any]:
        """The request body as it travels (the client's own typed `create` spends more time
        re-checking its parameters than the rest of the wire; these are checked already)."""
        body: dict[str, Any] = {"model": self._config.model, "messages": messages, **options}
        body["model"] = provider_model(body["model"])  # the agent's own or CHAT_MODEL
        if tools:
            body["tools"] = tools
        if stream:
            body |= {"stream": True, "stream_options": {"include_usage": True}}
        return body

    async def step(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None, **options: Any
    ) -> Step:
        """One answer, as one JSON POST (the provider client: one attempt, a total timeout;
        the SDK's typed client cost more CPU per request than the rest of the turn)."""
        body = self._body(messages, tools, options, stream=False)
        try:
            answer = await self._provider().post("/chat/completions", body)
        except ProviderRequestFailed as exc:
            raise _failed(exc) from None
        return _answered(answer.body)

    def _provider(self) -> ProviderClient:
        if self._plain is None:  # built on first use, like the SDK's client
            config = self._config
            key = config.api_key or "not-configured"
            self._plain = ProviderClient(config.base_url, key, config.timeout_seconds)
        return self._plain

    async def stream_step(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        relay: Relay,
        **options: Any,
    ) -> Step:
        body = self._body(messages, tools, options, stream=True)
        joined = _Joined()
        with _failures():
            stream = await self._openai().post(
                "/chat/completions",
                body=body,
                cast_to=ChatCompletion,
                stream=True,
                stream_cls=openai.AsyncStream[ChatCompletionChunk],
            )
            async with stream:  # leaving it closes the model's response: its request ends
                async for chunk in stream:
                    text = joined.add(chunk)
                    if text:
                        await relay(text)
        return joined.step()

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()
        if self._plain is not None:
            await self._plain.aclose()


def _failed(exc: ProviderRequestFailed) -> ChatModelFailed:
    """A failed request as ours: a timeout, a status, or another failure by its kind."""
    if exc.kind == "APITimeoutError":
        return ChatModelTimeout("the conversation model did not answer in time")
    if exc.status is not None:
        return ChatModelFailed(f"the conversation model answered {exc.status}")
    return ChatModelFailed(f"the conversation model failed ({exc.kind})")


def _answered(body: bytes) -> Step:
    """A Chat Completions answer read as a step (an unreadable one is `ChatModelFailed`)."""
    try:
        completion = json.loads(body)
        choices = completion.get("choices")
        if not choices:
            raise ChatModelFailed("the conversation model answered no choice")
        choice = choices[0]
        message, usage = choice.get("message") or {}, completion.get("usage") or {}
        calls = tuple(
            ToolCall(c["id"], c["function"]["name"], c["function"].get("arguments") or "")
            for c in message.get("tool_calls") or ()
            if c.get("function") is not None
        )
        return Step(
            content=message.get("content"),
            tool_calls=calls,
            prompt_tokens=int(usage.get("prompt_tokens") or 0),
            completion_tokens=int(usage.get("completion_tokens") or 0),
            finish_reason=choice.get("finish_reason") or "stop",
        )
    except (ValueError, KeyError, TypeError, AttributeError):
        raise ChatModelFailed("the conversation model's answer could not be read") from None


@dataclass
class _Call:
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


@dataclass
class _Joined:
    """A streamed answer put back together: its text, its tool calls by index, its usage."""

    text: list[str] = field(default_factory=list)
    calls: dict[int, _Call] = field(default_factory=dict)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    finish_reason: str = "stop"

    def add(self, chunk: Any) -> str:
        """Take one chunk in; its text delta, if any."""
        if chunk.usage is not None:
            self.prompt_tokens = chunk.usage.prompt_tokens
            self.completion_tokens = chunk.usage.completion_tokens
        if not chunk.choices:
            return ""
        choice = chunk.choices[0]
        if choice.finish_reason:
            self.finish_reason = choice.finish_reason
        for part in choice.delta.tool_calls or ():
            call = self.calls.setdefault(part.index, _Call())
            call.id = part.id or call.id
            if part.function is not None:
                call.name = part.function.name or call.name
                call.arguments.append(part.function.arguments or "")
        text: str = choice.delta.content or ""
        self.text.append(text)
        return text

    def step(self) -> Step:
        calls = tuple(
            ToolCall(c.id, c.name, "".join(c.arguments))
            for _, c in sorted(self.calls.items())
            if c.name
        )
        return Step(
            "".join(self.text) or None,
            calls,
            self.prompt_tokens,
            self.completion_tokens,
            self.finish_reason,
        )
