"""What the AG-UI wire reads from a run's body (`RunAgentInput`, parsed with the `ag-ui-protocol`
package): the session key, who the run is about, the new messages, the client's tools.

- `threadId` is the session key (kind `session`), under the session header's rules.
- Identities come from `forwardedProps.identities` and `forwardedProps.customerId`, under the
  identities header's rules (`chat.identities`); the headers that name a session or
  identities on the other wires are refused here, so a run has one source of each.
- The official client resends the whole history on every run, and the server's session thread
  is authoritative: only the messages after the last `assistant` message are new (`activity`
  and `reasoning` messages are the client's display and are skipped). Of those, a `tool`
  message is kept only when it answers a call the thread left open (a client tool's call); one
  the thread already answers (a server tool's result the client replays) is dropped
  (`new_messages`, given the thread when the turn opens).
- `tools` are the client's tools: offered to the model beside the agent's own, never run here.

`state` and `context` are not read. Every refusal is a 400 naming the field and the rule.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Final

from ag_ui.core import (
    ActivityMessage,
    AssistantMessage,
    Message,
    ReasoningMessage,
    ResumeEntry,
    RunAgentInput,
    TextInputContent,
    ToolMessage,
)
from aiohttp import web

from chat import Tool, client_tool
from chat.identities import InvalidIdentities, check_identities, merge_customer_id
from chat.turn_request import MAX_MESSAGE_CHARS, MAX_MESSAGES, MAX_SESSION_KEY_CHARS
from memory.contract import InvalidRequest
from worker.http.wires.turn_headers import CONVERSATION_HEADER, IDENTITIES_HEADER, SESSION_HEADER

MAX_CLIENT_TOOLS: Final = 64
MAX_TOOL_DESCRIPTION_CHARS: Final = 4_000
TOOL_NAME: Final = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""A function name as Chat Completions takes it."""
Chat = dict[str, Any]  # a message in Chat Completions' shape


@dataclass(frozen=True, slots=True)
class ClientTool:
    name: str
    description: str
    parameters: dict[str, Any]


@dataclass(frozen=True, slots=True)
class AguiRun:
    """One run as the wire reads it."""

    thread_id: str
    run_id: str
    identities: dict[str, str]
    candidates: list[tuple[int, Chat]]  # (index in `messages`, message) after the last assistant
    tools: tuple[ClientTool, ...]
    resume: tuple[ResumeEntry, ...]
    draft: bool = False  # `forwardedProps.prompt: "draft"`: the agent's prompt draft runs


def _problem(field: str, rule: str) -> InvalidRequest:
    return InvalidRequest(f"{field}: {rule}", field=field)


def read_run(request: web.Request, body: RunAgentInput) -> AguiRun:
    """The run of a parsed body; `InvalidRequest` or `InvalidIdentities` naming the field."""
    for header in (SESSION_HEADER, CONVERSATION_HEADER, IDENTITIES_HEADER):
        if header in request.headers:
            raise _problem(
                header,
                "not read on the AG-UI wire: the session is threadId, the customer "
                "forwardedProps.identities and forwardedProps.customerId",
            )
    return AguiRun(
        thread_key(body.thread_id),
        body.run_id,
        identities_of(body.forwarded_props),
        candidates(body.messages),
        client_tools(body.tools or []),
        tuple(body.resume or ()),
        draft_asked(body.forwarded_props),
    )


def draft_asked(props: object) -> bool:
    """`forwardedProps.prompt`: "draft" runs the agent's prompt draft (the console's
    Playground), "published" or nothing the published prompt."""
    value = props.get("prompt", "published") if isinstance(props, dict) else "published"
    if value not in ("draft", "published"):
        raise _problem("forwardedProps.prompt", 'must be "draft" or "published"')
    return value == "draft"


def thread_key(value: str) -> str:
    if not value:
        raise _problem("threadId", "must have at least 1 character")
    if len(value) > MAX_SESSION_KEY_CHARS:
        raise _problem("threadId", f"must have at most {MAX_SESSION_KEY_CHARS} characters")
    if not value.isascii() or not value.isprintable():
        raise _problem("threadId", "must be printable ASCII")
    return value


def identities_of(props: object) -> dict[str, str]:
    """`forwardedProps.identities` with `forwardedProps.customerId` folded in."""
    if props is None:
        return {}
    if not isinstance(props, dict):
        raise _problem("forwardedProps", "must be an object")
    try:
        identities = check_identities(props.get("identities"))
    except InvalidIdentities as exc:
        raise InvalidIdentities(exc.rule, "forwardedProps.identities") from None
    try:
        return merge_customer_id(identities, props.get("customerId"))
    except InvalidIdentities as exc:
        named = "identities" if exc.field == "identities" else "customerId"
        raise InvalidIdentities(exc.rule, f"forwardedProps.{named}") from None


def _text(index: int, content: object) -> str:
    field = f"messages[{index}].content"
    if isinstance(content, str):
        text = content
    else:
        parts = content if isinstance(content, list) else []
        for j, part in enumerate(parts):
            if not isinstance(part, TextInputContent):
                raise _problem(f"{field}[{j}]", "only text parts are taken on this wire")
        text = "".join(part.text for part in parts)
    if len(text) > MAX_MESSAGE_CHARS:
        raise _problem(field, f"must have at most {MAX_MESSAGE_CHARS} characters")
    return text


def _chat(index: int, message: Message) -> Chat:
    content = _text(index, message.content)
    if isinstance(message, ToolMessage):
        if message.error is not None:
            content = json.dumps({"error": message.error, "content": content})
        return {"role": "tool", "tool_call_id": message.tool_call_id, "content": content}
    return {"role": message.role, "content": content}


def candidates(messages: list[Message]) -> list[tuple[int, Chat]]:
    """The messages after the last assistant message, in Chat Completions' shape."""
    shown = [
        (i, m)
        for i, m in enumerate(messages)
        if not isinstance(m, ActivityMessage | ReasoningMessage)
    ]
    last = max((n for n, (_, m) in enumerate(shown) if isinstance(m, AssistantMessage)), default=-1)
    after = shown[last + 1 :]
    if len(after) > MAX_MESSAGES:
        raise _problem("messages", f"at most {MAX_MESSAGES} new messages after the last assistant")
    return [(i, _chat(i, m)) for i, m in after]


def open_calls(thread: list[Chat]) -> list[str]:
    """The ids of the calls the thread's last assistant message made that no tool answered."""
    last = max((n for n, m in enumerate(thread) if m.get("role") == "assistant"), default=-1)
    if last < 0:
        return []
    answered = {m.get("tool_call_id") for m in thread[last + 1 :] if m.get("role") == "tool"}
    calls = thread[last].get("tool_calls") or []
    return [c["id"] for c in calls if c["id"] not in answered]


def new_messages(found: list[tuple[int, Chat]], thread: list[Chat]) -> list[Chat]:
    """The run's new messages given the session's thread: the answers to its open calls first
    (every open call answered), then the other new messages; replayed tool results dropped."""
    pending = open_calls(thread)
    answers = {m["tool_call_id"]: m for _, m in found if m["role"] == "tool"}
    unanswered = [call for call in pending if call not in answers]
    if unanswered:
        raise _problem(
            "messages",
            f"answer every pending tool call with a tool message first ({', '.join(unanswered)})",
        )
    rest = [m for _, m in found if m["role"] != "tool"]
    new = [answers[call] for call in pending] + rest
    if not new:
        raise _problem("messages", "no new message after the last assistant message")
    return new


def client_tools(tools: list[Any]) -> tuple[ClientTool, ...]:
    if len(tools) > MAX_CLIENT_TOOLS:
        raise _problem("tools", f"must have at most {MAX_CLIENT_TOOLS} tools")
    seen: set[str] = set()
    out = []
    for i, tool in enumerate(tools):
        if not TOOL_NAME.fullmatch(tool.name):
            raise _problem(f"tools[{i}].name", "must be 1 to 64 letters, digits, _ or -")
        if tool.name in seen:
            raise _problem(f"tools[{i}].name", "is offered twice")
        seen.add(tool.name)
        if len(tool.description) > MAX_TOOL_DESCRIPTION_CHARS:
            raise _problem(
                f"tools[{i}].description",
                f"must have at most {MAX_TOOL_DESCRIPTION_CHARS} characters",
            )
        parameters = {"type": "object", "properties": {}}
        if tool.parameters is not None:
            if not isinstance(tool.parameters, dict):
                raise _problem(f"tools[{i}].parameters", "must be a JSON Schema object")
            parameters = tool.parameters
        out.append(ClientTool(tool.name, tool.description, parameters))
    return tuple(out)


def as_tool(tool: ClientTool) -> Tool:
    """The client's tool as the turn offers it (`kind="client"`: the turn ends on its call)."""
    return client_tool(tool.name, tool.description, tool.parameters)
