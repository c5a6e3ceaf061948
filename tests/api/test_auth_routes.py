"""Authentication and scopes over HTTP: nothing is open except the health check."""

from __future__ import annotations

import pytest

from tests.api.conftest import auth
from tests.web_clients import Client
from worker.http.server.context import Route
from worker.http.web import ROUTES

GUARDED = [r for r in ROUTES if r.scope != "public"]


def concrete(path: str) -> str:
    return (
        path.replace("{agentId}", "support")
        .replace("{sessionId}", "0" * 32)
        .replace("{namespace}", "help")
        .replace("{documentId}", "00000000-0000-0000-0000-000000000000")
        .replace("{decisionId}", "00000000-0000-4000-8000-000000000000")
    )


class TestHealth:
    async def test_health_is_open(self, client: Client) -> None:
        """The health check answers without a key and proves the database answers."""
        response = await client.get("/healthz")
        assert response.status == 200
        body = await response.json()
        assert (body["status"], body["database"]) == ("ok", "ok")

    def test_it_is_the_only_public_route(self) -> None:
        """Every other route in the table names a scope."""
        assert [r.path for r in ROUTES if r.scope == "public"] == ["/healthz"]


class TestAuthentication:
    @pytest.mark.parametrize("route", GUARDED, ids=lambda r: f"{r.method} {r.path}")
    async def test_no_key_is_401(self, client: Client, route: Route) -> None:
        """Without a bearer key every guarded route answers 401 with a Bearer challenge."""
        response = await client.request(route.method, concrete(route.path), json={})
        assert response.status == 401
        assert response.headers["WWW-Authenticate"] == "Bearer"
        assert (await response.json())["error"]["code"] == "unauthorized"

    @pytest.mark.parametrize(
        "header",
        [
            "Bearer wrong-secret-0123456789abcdef",
            "Basic YWRtaW46YWRtaW4=",
            "Bearer",
            "admin-secret-0123456789abcdef",
            "Bearer admin-secret-0123456789abcdeF",
        ],
    )
    async def test_invalid_keys_are_401(self, client: Client, header: str) -> None:
        """A wrong secret, another scheme or a bare token is not authenticated."""
        response = await client.get(
            "/api/memory/settings/support", headers={"Authorization": header}
        )
        assert response.status == 401

    async def test_scheme_is_case_insensitive(self, client: Client) -> None:
        """`bearer` in lower case is the same scheme."""
        token = auth()["Authorization"].split(" ", 1)[1]
        response = await client.get(
            "/api/memory/settings/support", headers={"Authorization": f"bearer {token}"}
        )
        assert response.status == 200


class TestScopes:
    @pytest.mark.parametrize(
        ("method", "path", "allowed", "denied"),
        [
            ("GET", "/api/memory/settings/support", "config-reader", "memory-reader"),
            ("GET", "/api/memory/settings/support", "config-writer", "nobody"),
            ("PUT", "/api/memory/settings/support", "config-writer", "config-reader"),
            ("DELETE", "/api/memory/settings/support", "config-writer", "memory-eraser"),
            ("POST", "/api/memory/customers/support/recall", "memory-reader", "memory-eraser"),
            ("POST", "/api/memory/customers/support/delete-all", "memory-eraser", "memory-reader"),
            ("GET", "/api/memory/extraction", "config-reader", "memory-reader"),
            ("PUT", "/api/memory/extraction/guidance/draft", "config-writer", "config-reader"),
            ("POST", "/api/memory/extraction/guidance/publish", "config-writer", "config-reader"),
            ("DELETE", "/api/memory/extraction/guidance", "config-writer", "config-reader"),
            ("PUT", "/api/memory/extraction/model", "config-writer", "config-reader"),
            ("GET", "/api/memory/activity", "config-reader", "memory-eraser"),
        ],
    )
    async def test_scope_decides(
        self, client: Client, method: str, path: str, allowed: str, denied: str
    ) -> None:
        """The key without the scope gets 403 and changes nothing; the key with it gets in."""
        bodies = {
            "/api/memory/settings/support": {"save": True},
            "/api/memory/extraction/guidance/draft": {"text": "Draft."},
            "/api/memory/extraction/model": {"model": "openai/other"},
        }
        body = bodies.get(path, {"userId": "+1 555"})
        refused = await client.request(method, path, json=body, headers=auth(denied))
        assert refused.status == 403
        assert (await refused.json())["error"]["code"] == "forbidden"
        activity = await client.get("/api/memory/activity", headers=auth())
        entries = (await activity.json())["entries"]
        assert [e for e in entries if e["actor"] != "code"] == []
        accepted = await client.request(method, path, json=body, headers=auth(allowed))
        assert accepted.status == 200, await accepted.text()


class TestUnknownRoutes:
    async def test_unknown_path_is_json_404(self, client: Client) -> None:
        """Routing misses answer in the same error shape."""
        response = await client.get("/api/nothing", headers=auth())
        assert response.status == 404
        assert (await response.json())["error"]["code"] == "not_found"

    async def test_wrong_method_is_405_with_allow(self, client: Client) -> None:
        """A known path with a wrong method says which methods exist."""
        response = await client.post("/api/memory/settings/support", headers=auth())
        assert response.status == 405
        assert "GET" in response.headers["Allow"]
        assert (await response.json())["error"]["code"] == "method_not_allowed"


async def test_healthz_says_how_search_ranks_on_this_server(
    client: Client, pgvector_missing: str | None
) -> None:
    """What a search does here: where pgvector (with HNSW) is (the embedded server), this app
    has no embedding model, so lexical for that reason; else lexical and the database's why."""
    body = await (await client.get("/healthz")).json()
    if pgvector_missing is None:
        assert (body["search"], body["searchReason"]) == (
            "lexical",
            "embedding_model_not_configured",
        )
        assert "STACKBONE_MEMORY_EMBEDDING_MODEL" in body["searchFix"]
    else:  # Debian's server has no pgvector package
        assert body["search"] == "lexical"
        assert body["searchReason"] in {
            "vector_extension_missing",
            "vector_without_hnsw",
            "semantic_search_not_enabled",
        }
