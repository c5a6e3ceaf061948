"""The web layer's pure parts: the catalog, API key parsing and checks, error statuses."""

from __future__ import annotations

import json

import pytest

from memory.contract import limits
from memory.contract._errors import ERROR_CODES
from memory.settings import CodeDefaults
from worker.catalog import AgentSpec, Catalog, CatalogError, UnknownAgent, default_catalog, prompt
from worker.http.server.auth import (
    AuthConfigError,
    Forbidden,
    Unauthenticated,
    authenticate,
    authorize,
    bearer_token,
    parse_api_keys,
    undeclared_agents,
)
from worker.http.server.statuses import STATUSES, code_for_status, status_for

SECRET = "s3cret-value-that-is-long-enough"

LONGEST = limits.MAX_AGENT_ID_CHARS


class TestCatalog:
    def test_duplicate_name_fails_at_construction(self) -> None:
        with pytest.raises(CatalogError, match="twice"):
            Catalog([AgentSpec("a", "support"), AgentSpec("a", "support")])

    def test_missing_prompt_file_fails_at_construction(self) -> None:
        with pytest.raises(CatalogError, match="prompt file"):
            Catalog([AgentSpec("a", "no_such_prompt")])

    @pytest.mark.parametrize("name", ["", "has space", "a/b", "x" * 201])
    def test_unsafe_names_are_refused(self, name: str) -> None:
        with pytest.raises(CatalogError):
            Catalog([AgentSpec(name, "support")])

    def test_lookup_and_identity_keys(self) -> None:
        catalog = Catalog(
            [
                AgentSpec("a", "support", CodeDefaults(identity_key="email")),
                AgentSpec("b", "support"),
            ]
        )
        assert catalog.get("b").name == "b"
        assert catalog.identity_keys() == {"a": "email"}
        with pytest.raises(UnknownAgent):
            catalog.get("c")

    def test_default_catalog_ships_support_with_prompt_files(self) -> None:
        """The example agent loads its conversation prompt and memory policy from files."""
        support = default_catalog().get("support")
        assert support.instructions == prompt("support")
        assert support.instructions and support.memory.instructions == prompt("support_memory")
        assert support.memory.identity_key == "phoneNumber"


class TestApiKeys:
    def test_unset_means_no_keys(self) -> None:
        assert parse_api_keys(None) == () and parse_api_keys("  ") == ()

    def test_parse_and_authenticate(self) -> None:
        keys = parse_api_keys(
            json.dumps([{"name": "ops", "key": SECRET, "scopes": ["memory:read"]}])
        )
        key = authenticate(keys, f"Bearer {SECRET}")
        assert key.name == "ops"
        authorize(key, "memory:read")
        with pytest.raises(Forbidden):
            authorize(key, "memory:delete")
        with pytest.raises(Unauthenticated):
            authenticate(keys, f"Bearer {SECRET}x")

    def test_config_write_implies_config_read_only(self) -> None:
        keys = parse_api_keys(
            json.dumps([{"name": "w", "key": SECRET, "scopes": ["config:write"]}])
        )
        assert keys[0].grants("config:read")
        assert not keys[0].grants("memory:read")

    def test_the_secret_is_not_kept(self) -> None:
        keys = parse_api_keys(json.dumps([{"name": "ops", "key": SECRET, "scopes": []}]))
        assert SECRET not in repr(keys)

    @pytest.mark.parametrize(
        "value",
        [
            "not json",
            json.dumps([{"name": "a", "key": "short", "scopes": []}]),
            json.dumps([{"name": "a", "key": SECRET, "scopes": ["root"]}]),
            json.dumps([{"name": "a b", "key": SECRET, "scopes": []}]),
            json.dumps([{"name": "a", "key": SECRET, "scopes": []}] * 2),
            json.dumps({"name": "a", "key": SECRET, "scopes": []}),
        ],
    )
    def test_malformed_configuration_fails_without_echoing_secrets(self, value: str) -> None:
        with pytest.raises(AuthConfigError) as caught:
            parse_api_keys(value)
        assert SECRET not in str(caught.value)
        assert "MEMORY_API_KEYS" in str(caught.value)

    def test_agents_absent_reach_every_agent_listed_reach_only_those(self) -> None:
        entries = [
            {"name": "all", "key": SECRET, "scopes": []},
            {"name": "two", "key": SECRET + "2", "scopes": [], "agents": ["support", "b.2"]},
        ]
        every, two = parse_api_keys(json.dumps(entries))
        assert (every.agents, every.reaches("anything"), every.restricted) == (None, True, False)
        assert two.agents == frozenset({"support", "b.2"}) and two.restricted
        assert (two.reaches("support"), two.reaches("sales")) == (True, False)

    @pytest.mark.parametrize(
        ("agents", "where"),
        [
            ([], "0.agents: List should have at least 1 item"),
            (None, "0.agents: Value error, must be a list of agent ids"),
            ("support", "0.agents: Input should be a valid array"),
            ({"support": True}, "0.agents: Input should be a valid array"),
            ([7], "0.agents.0: Input should be a valid string"),
            (["sup port"], "0.agents.0: Value error, must be an agent id"),
            (["-support"], "0.agents.0: Value error, must be an agent id"),
            (["a" * (LONGEST + 1)], "0.agents.0: Value error, must be an agent id"),
        ],
    )
    def test_bad_agents_are_a_configuration_error_naming_the_field(
        self, agents: object, where: str
    ) -> None:
        entry = {"name": "a", "key": SECRET, "scopes": [], "agents": agents}
        with pytest.raises(AuthConfigError) as caught:
            parse_api_keys(json.dumps([entry]))
        assert str(caught.value).startswith(f"MEMORY_API_KEYS: {where}")
        assert SECRET not in str(caught.value)

    def test_agents_the_catalog_does_not_declare_are_named_for_a_warning(self) -> None:
        entries = [
            {"name": "all", "key": SECRET, "scopes": []},
            {"name": "typo", "key": SECRET + "2", "scopes": [], "agents": ["suport", "sales"]},
            {"name": "fine", "key": SECRET + "3", "scopes": [], "agents": ["support"]},
        ]
        keys = parse_api_keys(json.dumps(entries))
        assert undeclared_agents(keys, ["support", "sales"]) == {"typo": ["suport"]}

    def test_the_longest_agent_id_is_accepted(self) -> None:
        entry = {"name": "a", "key": SECRET, "scopes": [], "agents": ["a" * LONGEST]}
        assert parse_api_keys(json.dumps([entry]))[0].reaches("a" * LONGEST)

    @pytest.mark.parametrize(
        ("header", "token"),
        [(None, None), ("Bearer  abc ", "abc"), ("bearer abc", "abc"), ("Token abc", None)],
    )
    def test_bearer_token(self, header: str | None, token: str | None) -> None:
        assert bearer_token(header) == token


class TestStatuses:
    def test_every_memory_error_code_has_a_status(self) -> None:
        assert set(ERROR_CODES) <= set(STATUSES)

    @pytest.mark.parametrize(
        ("code", "status"),
        [
            ("memory_invalid_request", 400),
            ("memory_conflict", 409),
            ("memory_schema_missing", 503),
            ("memory_unavailable", 503),
            ("capability_unavailable", 503),
            ("memory_model_failed", 502),
            ("unauthorized", 401),
            ("forbidden", 403),
            ("agent_not_found", 404),
            ("something_new", 500),
        ],
    )
    def test_status_for(self, code: str, status: int) -> None:
        assert status_for(code) == status

    def test_statuses_aiohttp_raises_map_back(self) -> None:
        assert [status_for(code_for_status(s)) for s in (404, 405, 413, 503)] == [
            404,
            405,
            413,
            500,
        ]
