"""One request per operation of the served OpenAPI document, to walk every route of the app.

Each operation gets the path values and the one body its schema names (`BODIES`, by the request
body's model): enough for the route to pass its checks and reach its database work. A route
whose body model is not in `BODIES` fails the walk, so a new route is walked from its first day.
Static pages (operations without `x-family`) are left out: they hold no data.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Final

USER: Final = "+34 611 22 33 44"
CHAT: Final = {"model": "support", "messages": [{"role": "user", "content": "Hi"}]}
BODIES: Final[dict[str, Any]] = {
    "SettingsBody": {"read": True},
    "RecallBody": {"userId": USER},
    "PersonBody": {"userId": USER},
    "AddBody": {"userId": USER, "content": "I moved to Madrid."},
    "SearchBody": {"query": "dog"},
    "DraftBody": {"text": "Prefer the caller's words."},
    "ModelBody": {"model": "gpt-x"},
    "RoomBody": {"agentId": "support", "identities": {"phoneNumber": USER}},
    "CallBody": {"agentId": "support", "phoneNumber": "+34600111222"},
    "ChatBody": CHAT,
    "MessagesBody": {**CHAT, "max_tokens": 20},
    "DocsSearchBody": {"query": "refund"},
    "RunAgentInput": {
        "threadId": "walk",
        "runId": "run-1",
        "messages": [{"id": "u1", "role": "user", "content": "Hi"}],
        "forwardedProps": {"customerId": "crm/1"},
    },
    "DecisionBody": {"decision": "approve"},
    "RetentionBody": {"calls": 90},
    "ReadsBody": {"userId": USER},
    "PromptDraftBody": {"text": "Answer in one sentence."},
}
PATH_VALUES: Final = {
    "agentId": "support",
    "namespace": "help",
    "documentId": "00000000-0000-4000-8000-000000000001",
    "sessionId": "0" * 32,
    "decisionId": "00000000-0000-4000-8000-000000000002",
}
QUERY_VALUES: Final = {"agentId": "support", "source": "returns.txt"}  # others left out
UPLOAD: Final = b"Items can be returned within thirty days."


@dataclass(frozen=True, slots=True)
class Call:
    method: str
    template: str  # the document's path
    path: str  # with its values and query
    body: bytes | None
    content_type: str | None
    family: str  # `x-family`: whose codes the route answers with

    @property
    def group(self) -> str:
        """The route family it is reported under: `settings`, `documents`, `v1`, ..."""
        parts = self.template.strip("/").split("/")
        if parts[0] == "api":
            parts = parts[1:]
        named = {
            "v1": "chat wires",
            "agui": "chat wires",
            "chat": "chat sessions",
            "openapi.json": "openapi",
        }
        return (
            parts[1] if parts[0] == "memory" and len(parts) > 1 else named.get(parts[0], parts[0])
        )


def _body(operation: dict[str, Any]) -> tuple[bytes | None, str | None]:
    content = operation.get("requestBody", {}).get("content", {})
    if "application/json" in content:
        model = content["application/json"]["schema"]["$ref"].rsplit("/", 1)[-1]
        return json.dumps(BODIES[model]).encode(), "application/json"
    if content:  # a raw upload: plain text is one of its types
        assert "text/plain" in content, content
        return UPLOAD, "text/plain"
    return None, None


def _path(template: str, operation: dict[str, Any]) -> str:
    path = template
    for name, value in PATH_VALUES.items():
        path = path.replace("{" + name + "}", value)
    assert "{" not in path, template
    query = [
        f"{p['name']}={QUERY_VALUES[p['name']]}"
        for p in operation.get("parameters", ())
        if p["in"] == "query" and p["name"] in QUERY_VALUES
    ]
    return path + ("?" + "&".join(query) if query else "")


def calls(document: dict[str, Any]) -> list[Call]:
    """Every API operation of `document`, each as one request."""
    walk = []
    for template, operations in document["paths"].items():
        for method, operation in operations.items():
            if "x-family" not in operation:
                continue
            body, content_type = _body(operation)
            path = _path(template, operation)
            family = operation["x-family"]
            walk.append(Call(method.upper(), template, path, body, content_type, family))
    return walk
