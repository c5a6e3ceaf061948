"""Keys that reach only their agents: the auth matrix's agent dimension, walked over every route.

`sales-only` has every scope but reaches only `sales`. Every guarded route says what it reaches
of the agents (`Route.agents`), and each kind has its table below, which must name exactly the
routes of that kind: a new route fails here until it is classified and exercised.

- `one`: the restricted key asking for `support` gets exactly what it gets for an agent that is
  not declared (404, same body), and for `sales` it gets in.
- `listing`: the restricted key sees `sales` only.
- `shared`: the restricted key is refused (403) what all agents share.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from memory.api import Memory
from testkit.model_server import ModelServer
from tests.api.conftest import auth
from tests.memory.helpers import add_op
from tests.web_clients import Client
from worker.http.server.context import Route
from worker.http.web import ROUTES

RESTRICTED = "sales-only"
OWN, OTHER, UNKNOWN = "sales", "support", "nobody-here"
USER = "+34 611 22 33 44"
SESSION = "0" * 32
Request = tuple[str, Any]  # the path with its query, the JSON body (None: no body)
Builder = Callable[[str], Request]


def _path(template: str, body: Any = None) -> Builder:
    return lambda agent: (template.replace("{agentId}", agent), body)


def _query(path: str) -> Builder:
    return lambda agent: (f"{path}?agentId={agent}", None)


ONE: dict[tuple[str, str], Builder] = {
    ("GET", "/api/memory/settings/{agentId}"): _path("/api/memory/settings/{agentId}"),
    ("PUT", "/api/memory/settings/{agentId}"): _path(
        "/api/memory/settings/{agentId}", {"save": True}
    ),
    ("DELETE", "/api/memory/settings/{agentId}"): _path("/api/memory/settings/{agentId}"),
    ("DELETE", "/api/memory/agents/{agentId}"): _path("/api/memory/agents/{agentId}"),
    ("POST", "/api/memory/customers/{agentId}/recall"): _path(
        "/api/memory/customers/{agentId}/recall", {"userId": USER}
    ),
    ("POST", "/api/memory/customers/{agentId}/history"): _path(
        "/api/memory/customers/{agentId}/history", {"userId": USER}
    ),
    ("POST", "/api/memory/customers/{agentId}/delete-all"): _path(
        "/api/memory/customers/{agentId}/delete-all", {"userId": USER}
    ),
    ("POST", "/api/memory/customers/{agentId}/export"): _path(
        "/api/memory/customers/{agentId}/export", {"userId": USER}
    ),
    ("POST", "/api/memory/customers/{agentId}/reads"): _path(
        "/api/memory/customers/{agentId}/reads", {"userId": USER}
    ),
    ("GET", "/api/memory/settings/{agentId}/retention"): _path(
        "/api/memory/settings/{agentId}/retention"
    ),
    ("PUT", "/api/memory/settings/{agentId}/retention"): _path(
        "/api/memory/settings/{agentId}/retention", {"calls": 90}
    ),
    ("POST", "/api/memory/customers/{agentId}/add"): _path(
        "/api/memory/customers/{agentId}/add", {"userId": USER, "content": "Hi"}
    ),
    ("POST", "/api/memory/customers/{agentId}/search"): _path(
        "/api/memory/customers/{agentId}/search", {"query": "Corolla"}
    ),
    ("GET", "/api/memory/ops"): _query("/api/memory/ops"),
    ("GET", "/api/memory/ops/stream"): _query("/api/memory/ops/stream"),
    ("POST", "/api/voice/rooms"): lambda a: (
        "/api/voice/rooms",
        {"agentId": a, "identities": {"phoneNumber": USER}},
    ),
    ("POST", "/api/voice/calls"): lambda a: (
        "/api/voice/calls",
        {"agentId": a, "phoneNumber": "+34600111222"},
    ),
    ("POST", "/v1/chat/completions"): lambda a: (
        "/v1/chat/completions",
        {"model": a, "messages": [{"role": "user", "content": "Hi"}]},
    ),
    ("POST", "/v1/messages"): lambda a: (
        "/v1/messages",
        {"model": a, "max_tokens": 64, "messages": [{"role": "user", "content": "Hi"}]},
    ),
    ("POST", "/agui/{agentId}"): _path(
        "/agui/{agentId}",
        {"threadId": "t", "runId": "r", "messages": [{"id": "u", "role": "user", "content": "Hi"}]},
    ),
    ("GET", "/api/memory/agents/{agentId}/prompt"): _path("/api/memory/agents/{agentId}/prompt"),
    ("PUT", "/api/memory/agents/{agentId}/prompt/draft"): _path(
        "/api/memory/agents/{agentId}/prompt/draft", {"text": "Be brief."}
    ),
    ("POST", "/api/memory/agents/{agentId}/prompt/publish"): _path(
        "/api/memory/agents/{agentId}/prompt/publish"
    ),
    ("DELETE", "/api/memory/agents/{agentId}/prompt"): _path("/api/memory/agents/{agentId}/prompt"),
    ("GET", "/api/chat/sessions/{agentId}"): _path("/api/chat/sessions/{agentId}"),
    ("GET", "/api/chat/sessions/{agentId}/{sessionId}"): _path(
        f"/api/chat/sessions/{{agentId}}/{SESSION}"
    ),
    ("DELETE", "/api/chat/sessions/{agentId}/{sessionId}"): _path(
        f"/api/chat/sessions/{{agentId}}/{SESSION}"
    ),
}
# listing routes that also take one agent (`?agentId=`): that form is a `one` request
ONE_FORM: dict[tuple[str, str], Builder] = {
    ("GET", "/api/memory/activity"): _query("/api/memory/activity"),
}
LISTING: dict[tuple[str, str], Callable[[Any], list[str]]] = {
    ("GET", "/api/memory/agents"): lambda b: [a["agentId"] for a in b["agents"]],
    ("GET", "/api/voice/agents"): lambda b: [a["agentId"] for a in b["agents"]],
    ("GET", "/api/memory/overview"): lambda b: [a["agentId"] for a in b["agents"]],
    # a shared change (no agent) shows as "(shared)"
    ("GET", "/api/memory/activity"): lambda b: sorted(
        {e["agentId"] or "(shared)" for e in b["entries"]}
    ),
}
NOT_FOUND = {"agent_not_found", "model_not_found"}
# routes whose agent is a stored decision's: walked with an agent that holds a tool in
# tests/held/test_decisions.py (another agent's decision is an unknown one; a listing shows
# only the key's agents' decisions)
ELSEWHERE = {
    ("GET", "/api/chat/decisions/{decisionId}"): "one",
    ("POST", "/api/chat/decisions/{decisionId}"): "one",
    ("GET", "/api/chat/decisions"): "listing",
}


def _kind(kind: str) -> list[Route]:
    return [r for r in ROUTES if r.agents == kind and (r.method, r.path) not in ELSEWHERE]


def _ids(route: Route) -> str:
    return f"{route.method} {route.path}"


@pytest.fixture(name="client")
def _client(whole_app: Client) -> Client:
    return whole_app


async def send(client: Client, method: str, request: Request, key: str) -> tuple[int, Any]:
    """One request; the status and the JSON body (None for a stream, which is closed)."""
    path, body = request
    data = None if body is None else json.dumps(body)
    headers = auth(key) | {"Content-Type": "application/json"}
    response = await client.request(method, path, data=data, headers=headers)
    answer = await response.json() if response.content_type == "application/json" else None
    response.close()
    return response.status, answer


def test_every_route_is_classified_and_exercised() -> None:
    """The tables name exactly the routes of each kind; public routes reach no agent."""
    assert {(r.method, r.path) for r in _kind("one")} == set(ONE)
    assert {(r.method, r.path) for r in _kind("listing")} == set(LISTING)
    assert all(r.agents is None for r in ROUTES if r.scope == "public")
    assert {(r.method, r.path): r.agents for r in ROUTES if (r.method, r.path) in ELSEWHERE} == (
        ELSEWHERE
    )
    assert all(r.agents == "one" for r in ROUTES if "{agentId}" in r.path)


def test_routes_resolve_agents_only_through_the_guarded_helpers() -> None:
    """No route module reads the catalog or the agent directory itself (it would skip the
    key's agents)."""
    folder = Path(__file__).parents[2] / "worker" / "http"
    readers = [
        p.relative_to(folder).as_posix()
        for p in sorted(folder.glob("*/*.py"))  # every room's modules; web.py fills the keys
        if re.search(r"\[(CATALOG|DIRECTORY)\]", p.read_text())
    ]
    # the turns' agents (`wires.DirectoryAgents`) get the directory from web.py, and a wire
    # hands them only an agent its key reaches (`wires.turn_request`)
    assert readers == ["server/context.py"]


@pytest.mark.parametrize("route", _kind("one"), ids=_ids)
async def test_another_agent_is_an_unknown_agent(
    client: Client, route: Route, model_server: ModelServer
) -> None:
    build = ONE[(route.method, route.path)]
    other = await send(client, route.method, build(OTHER), RESTRICTED)
    unknown = await send(client, route.method, build(UNKNOWN), RESTRICTED)
    assert other[0] == 404 and other[1]["error"]["code"] in NOT_FOUND
    assert other == unknown  # nothing tells that `support` exists
    assert await send(client, route.method, build(OTHER), "admin") != other
    model_server.answer_text("Hello.")  # the chat turn of the own agent
    status, body = await send(client, route.method, build(OWN), RESTRICTED)
    error = None if body is None or status < 400 else body["error"]["code"]
    assert error not in NOT_FOUND | {"forbidden"}, (status, body)


async def test_the_one_agent_form_of_a_listing_route(client: Client) -> None:
    for (method, _), build in ONE_FORM.items():
        other = await send(client, method, build(OTHER), RESTRICTED)
        assert other[0] == 404
        assert other == await send(client, method, build(UNKNOWN), RESTRICTED)
        assert (await send(client, method, build(OWN), RESTRICTED))[0] == 200


@pytest.mark.parametrize("route", _kind("listing"), ids=_ids)
async def test_listings_show_only_reachable_agents(client: Client, route: Route) -> None:
    for agent in ("support", "sales"):  # an activity entry of each agent, and a shared one
        request = (f"/api/memory/settings/{agent}", {"read": True})
        assert (await send(client, "PUT", request, "admin"))[0] == 200
    draft = ("/api/memory/extraction/guidance/draft", {"text": "Prefer the caller's words."})
    assert (await send(client, "PUT", draft, "admin"))[0] == 200
    agents = LISTING[(route.method, route.path)]
    status, everything = await send(client, route.method, (route.path, None), "admin")
    assert status == 200 and set(agents(everything)) >= {"support", "sales"}
    status, reachable = await send(client, route.method, (route.path, None), RESTRICTED)
    assert (status, agents(reachable)) == (200, ["sales"])
    assert "support" not in json.dumps(reachable)


@pytest.mark.parametrize("route", _kind("shared"), ids=_ids)
async def test_what_all_agents_share_is_refused_to_a_restricted_key(
    client: Client, route: Route
) -> None:
    path = route.path.replace("{namespace}", "help").replace(
        "{documentId}", "00000000-0000-0000-0000-000000000000"
    )
    status, body = await send(client, route.method, (path, {}), RESTRICTED)
    assert (status, body["error"]["code"]) == (403, "forbidden")
    assert "reaches only some agents" in body["error"]["message"]
    assert (await send(client, route.method, (path, {}), "admin"))[0] != 403


async def test_a_refused_request_changes_nothing_of_the_other_agent(
    client: Client, memory: Memory, model_server: ModelServer
) -> None:
    model_server.answer([add_op("Has a blue Corolla.")], "Asked about a service.")
    assert (await memory.add("Worth keeping.", "support", USER)).error is None
    erase = ("/api/memory/customers/support/delete-all", {"userId": USER})
    assert (await send(client, "POST", erase, RESTRICTED))[0] == 404
    settings = ("/api/memory/settings/support", {"save": True})
    assert (await send(client, "PUT", settings, RESTRICTED))[0] == 404
    recall = ("/api/memory/customers/support/recall", {"userId": USER})
    status, body = await send(client, "POST", recall, "admin")
    assert (status, [f["content"] for f in body["facts"]]) == (200, ["Has a blue Corolla."])
    _, activity = await send(client, "GET", ("/api/memory/activity", None), "admin")
    assert [e for e in activity["entries"] if e["actor"] == RESTRICTED] == []
