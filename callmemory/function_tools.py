"""An agent's livekit `@function_tool` functions as the tools of a text turn.

The tool's JSON schema is livekit's own (`build_legacy_openai_schema`, from the function's
signature and docstring), so the model sees the same tool on voice and text. The model's
arguments are parsed and validated by livekit's own rules (`parse_function_arguments`,
`validated_arguments`); a refusal becomes `InvalidArguments` naming the fields (pydantic's
messages, without the values). A parameter typed `RunContext` gets None on text turns (there
is no voice session): a tool reads the agent and customer with `callmemory.tool_context()`,
which works on both. A livekit `ToolError` raised by the tool is its message to the model.
"""

from __future__ import annotations

import inspect
import json
from typing import Any, get_type_hints

import pydantic
from livekit.agents import llm
from livekit.agents.llm.utils import (
    build_legacy_openai_schema,
    is_context_type,
    parse_function_arguments,
    validated_arguments,
)

from chat import DEFAULT_TOOL_SECONDS, InvalidArguments, Tool, ToolContext, ToolRefused


def _arguments(fn: llm.FunctionTool[..., Any], raw: str) -> dict[str, Any]:
    try:
        parsed = parse_function_arguments(raw or "{}")
    except ValueError:
        raise InvalidArguments("arguments: must be a JSON object") from None
    try:
        return validated_arguments(fn, parsed)
    except pydantic.ValidationError as exc:
        problems = exc.errors(include_url=False, include_input=False)
        rules = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}" for e in problems
        )
        raise InvalidArguments(rules) from None
    except (ValueError, TypeError):
        raise InvalidArguments("arguments: do not match the tool's parameters") from None


def _context_params(fn: llm.FunctionTool[..., Any]) -> list[str]:
    hints = get_type_hints(fn, include_extras=True)
    params = inspect.signature(fn).parameters
    return [name for name in params if is_context_type(hints[name], allow_subclasses=True)]


def text_tool(
    fn: llm.FunctionTool[..., Any], deadline_seconds: float = DEFAULT_TOOL_SECONDS
) -> Tool:
    """One function tool for text turns."""
    schema = build_legacy_openai_schema(fn)["function"]
    contexts = _context_params(fn)

    async def run(_: ToolContext, raw_arguments: str) -> str:
        arguments = _arguments(fn, raw_arguments)
        try:
            value = fn(**arguments, **dict.fromkeys(contexts))
            if inspect.isawaitable(value):
                value = await value
        except llm.ToolError as refused:
            raise ToolRefused(refused.message) from None
        return value if isinstance(value, str) else _text(value)

    def check(raw_arguments: str) -> object:
        return _arguments(fn, raw_arguments)

    return Tool(
        schema["name"],
        schema["description"],
        schema["parameters"],
        run,
        deadline_seconds,
        check=check,
    )


def _text(value: object) -> str:
    if value is None:
        return ""
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(value)
