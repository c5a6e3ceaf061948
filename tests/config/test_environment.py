"""The one settings model: every variable listed once, every problem named at once."""

from __future__ import annotations

from pathlib import Path

import pytest
from dotenv import dotenv_values

from callmemory import environment
from callmemory.config import call_config, memory_config, pool_timeouts
from infra.pooler import limits_differ
from memory.config import ConfigError
from tests.docs_pages import documented_variables

ROOT = Path(__file__).resolve().parents[2]
NOT_PROCESS_VARIABLES = {"TEST_DATABASE_URL", "BENCH_DATABASE_URL"}  # tests and benchmarks


def test_env_example_the_model_and_the_configuration_page_list_the_same_variables() -> None:
    example = dotenv_values(ROOT / ".env.example")
    assert list(example) == list(dict.fromkeys(example))  # each once
    assert set(example) == set(environment.variables())
    assert documented_variables() - NOT_PROCESS_VARIABLES == set(environment.variables())


def test_env_example_values_are_the_defaults() -> None:
    example = {k: v or "" for k, v in dotenv_values(ROOT / ".env.example").items()}
    assert environment.read(example) == environment.read({})


def test_every_invalid_variable_is_named_at_once_without_its_value() -> None:
    env = {
        "PORT": "eighty",
        "CALL_RECALL_BUDGET_SECONDS": "-1",
        "STACKBONE_MEMORY_REASONING_EFFORT": "maximal",
        "WEB_MAX_CONNECTIONS": "0",
        "DATABASE_LOCK_TIMEOUT_SECONDS": "nan",
        "LOG_FORMAT": "xml",
    }
    with pytest.raises(ConfigError) as caught:
        environment.read(env)
    lines = str(caught.value).splitlines()
    assert sorted(line.split(":", 1)[0] for line in lines) == sorted(env)
    assert not any(value in str(caught.value) for value in ("eighty", "maximal", "xml"))


def test_required_variables_are_named_with_the_invalid_ones() -> None:
    needed = (
        environment.Required(("LIVEKIT_URL",), "needed"),
        environment.Required(("OPENAI_API_KEY", "VOICE_API_KEY"), "needed"),
    )
    with pytest.raises(ConfigError) as caught:
        environment.read({"PORT": "-1"}, required=needed)
    lines = str(caught.value).splitlines()
    assert [line.split(":", 1)[0] for line in lines] == [
        "LIVEKIT_URL",
        "OPENAI_API_KEY (or VOICE_API_KEY)",
        "PORT",
    ]
    assert environment.read({"VOICE_API_KEY": "k", "LIVEKIT_URL": "u"}, required=needed)


def test_all_or_none_names_each_missing_partner() -> None:
    together = environment.Required(("A_URL", "A_KEY", "A_SECRET"), "all or none", together=True)
    assert together.problem({}) == []
    assert together.problem({"A_URL": "u", "A_KEY": "k", "A_SECRET": "s"}) == []
    assert [line.split(":")[0] for line in together.problem({"A_KEY": "k"})] == [
        "A_URL",
        "A_SECRET",
    ]


@pytest.mark.parametrize(
    ("name", "at_limit", "past_limit"),
    [
        ("PORT", "65535", "65536"),
        ("PORT", "0", "-1"),
        ("WEB_METRICS_PORT", "1", "0"),
        ("WORKER_METRICS_PORT", "65535", "65536"),
        ("WEB_MAX_CONNECTIONS", "100000", "100001"),
        ("WEB_MAX_CONNECTIONS", "1", "0"),
        ("WEB_MAX_EXPORTS", "4", "5"),  # one of the web pool's 5 connections is always left
        ("WEB_MAX_EXPORTS", "1", "0"),
        ("WEB_HEADER_TIMEOUT_SECONDS", "0.1", "0.09"),
        ("WEB_BODY_TIMEOUT_SECONDS", "3600", "3600.5"),
        ("VOICE_ROOM_TOKEN_TTL_SECONDS", "30", "29"),
        ("VOICE_ROOM_TOKEN_TTL_SECONDS", "3600", "3601"),
        ("DATABASE_STATEMENT_TIMEOUT_SECONDS", "0", "-0.001"),
        ("DATABASE_COMMAND_TIMEOUT_SECONDS", "0.001", "0"),
        ("CALL_SAVE_TIMEOUT_SECONDS", "30.5", "30"),  # must exceed the extraction's 30 s
    ],
)
def test_limits(name: str, at_limit: str, past_limit: str) -> None:
    assert environment.read({name: at_limit})
    with pytest.raises(ConfigError, match=f"^{name}: "):
        environment.read({name: past_limit})


def test_blank_is_unset_and_words_are_trimmed() -> None:
    settings = environment.read(
        {"PORT": " ", "LOG_FORMAT": " JSON ", "MEMORY_MIGRATE_ON_START": "No"}
    )
    assert (settings.port, settings.log_format, settings.migrate_on_start) == (8080, "json", False)


def test_env_local_fills_in_and_the_real_environment_wins(tmp_path: Path) -> None:
    local = tmp_path / ".env.local"
    local.write_text("PORT=9000\nWORKER_AGENT=billing\n# a comment\nLOG_FORMAT='json'\n")
    process = {"PORT": "7000"}
    added = environment.load_env_local(local, process)
    assert sorted(added) == ["LOG_FORMAT", "WORKER_AGENT"]
    assert process == {"PORT": "7000", "WORKER_AGENT": "billing", "LOG_FORMAT": "json"}
    assert environment.load_env_local(tmp_path / "absent", process) == []


def test_report_is_one_configuration_error_line_per_problem() -> None:
    message = environment.report(ConfigError("A: is not set\nB: must be 1"))
    assert message.splitlines() == [
        "configuration error: A: is not set",
        "configuration error: B: must be 1",
    ]


@pytest.mark.parametrize(
    ("env", "named"),
    [
        (
            {"CALL_JOURNAL_HEARTBEAT_SECONDS": "5", "CALL_JOURNAL_LOST_AFTER_SECONDS": "14.9"},
            "CALL_JOURNAL_LOST_AFTER_SECONDS",
        ),
        (
            {"CALL_JOURNAL_LOST_AFTER_SECONDS": "60", "CALL_JOURNAL_DROP_AFTER_SECONDS": "59"},
            "CALL_JOURNAL_DROP_AFTER_SECONDS",
        ),
        ({"CALL_JOURNAL_HEARTBEAT_SECONDS": "0.09"}, "CALL_JOURNAL_HEARTBEAT_SECONDS"),
    ],
)
def test_journal_bounds_past_their_limits_are_named(env: dict[str, str], named: str) -> None:
    with pytest.raises(ConfigError) as caught:
        environment.read(env)
    assert str(caught.value).startswith(named)


@pytest.mark.parametrize(("value", "on"), [("1", True), (" No ", False), ("false", False)])
def test_the_journal_is_on_by_default_and_can_be_turned_off(value: str, on: bool) -> None:
    assert environment.read({}).journal_on is True
    assert environment.read({"CALL_JOURNAL": value}).journal_on is on
    with pytest.raises(ConfigError) as caught:
        environment.read({"CALL_JOURNAL": "off"})
    assert str(caught.value).startswith("CALL_JOURNAL")


def test_journal_bounds_at_their_limits_are_accepted() -> None:
    settings = environment.read(
        {
            "CALL_JOURNAL_HEARTBEAT_SECONDS": "1",
            "CALL_JOURNAL_LOST_AFTER_SECONDS": "3",
            "CALL_JOURNAL_DROP_AFTER_SECONDS": "3",
        }
    )
    assert settings.call_journal_drop_after_seconds == 3.0
    assert (
        environment.read({"CALL_JOURNAL_HEARTBEAT_SECONDS": "0.1"}).call_journal_heartbeat_seconds
        == 0.1
    )


def test_the_command_timeout_bounds_the_pool_and_every_public_memory_call() -> None:
    settings = environment.read({"DATABASE_COMMAND_TIMEOUT_SECONDS": "2.5"})
    assert pool_timeouts(settings).command_seconds == 2.5
    assert memory_config(settings).database_timeout_seconds == 2.5
    assert memory_config(environment.read({})).database_timeout_seconds == 5.0


POOLED = {"DATABASE_URL": "postgresql://app@bouncer:6432/db", "DATABASE_POOLER": "transaction"}
DIRECT = "postgresql://app@db:5432/db"


def test_the_pooler_needs_its_address_and_a_direct_one_for_migrations() -> None:
    with pytest.raises(ConfigError, match=r"^DATABASE_POOLER: transaction needs DATABASE_URL"):
        environment.read({"DATABASE_POOLER": "transaction", "DATABASE_DIRECT_URL": DIRECT})
    with pytest.raises(ConfigError, match=r"^DATABASE_DIRECT_URL: is not set; migrations at"):
        environment.read(POOLED)  # MEMORY_MIGRATE_ON_START defaults to 1
    with pytest.raises(ConfigError, match="DATABASE_POOLER"):
        environment.read({"DATABASE_POOLER": "session"})
    quiet = environment.read({**POOLED, "MEMORY_MIGRATE_ON_START": "0"})
    with pytest.raises(ConfigError, match=r"^DATABASE_DIRECT_URL: is not set"):
        _ = quiet.long_op_url  # the migrate command asks for it
    assert environment.read({**POOLED, "DATABASE_DIRECT_URL": DIRECT}).long_op_url == DIRECT
    assert environment.read({"DATABASE_URL": DIRECT}).long_op_url == DIRECT  # no pooler
    assert environment.read({}).long_op_url is None  # the embedded server


def test_pooled_connections_carry_no_start_up_settings_and_no_named_statements() -> None:
    settings = environment.read({**POOLED, "DATABASE_DIRECT_URL": DIRECT})
    options = call_config(settings).database.connection_options()
    assert options == {"statement_cache_size": 0, "server_settings": {}}
    direct = call_config(environment.read({})).database.connection_options()
    assert direct["server_settings"] == {"statement_timeout": "5000", "lock_timeout": "2000"}
    assert direct["statement_cache_size"] > 0


@pytest.mark.parametrize(
    ("days", "ok"), [("1", True), ("3650", True), ("0", False), ("3651", False)]
)
def test_ops_retention_days_at_and_past_its_limits(days: str, ok: bool) -> None:
    if ok:
        assert environment.read(
            {"MEMORY_OPS_RETENTION_DAYS": days}
        ).memory_ops_retention_days == int(days)
    else:
        with pytest.raises(ConfigError, match=r"^MEMORY_OPS_RETENTION_DAYS: "):
            environment.read({"MEMORY_OPS_RETENTION_DAYS": days})


def test_limits_differ_names_what_the_server_does_not_carry() -> None:
    wanted = {"statement_timeout": "5000", "lock_timeout": "2000"}
    assert limits_differ(dict(wanted), wanted) == []
    assert limits_differ({"statement_timeout": "0"}, wanted) == [
        "lock_timeout",
        "statement_timeout",
    ]


@pytest.mark.parametrize(
    ("url", "rule"),
    [
        ("postgresql://app:s3cret@db:fivefourthree/app", "a postgresql:// URL with a numeric port"),
        ("mysql://app:s3cret@db/app", "a postgresql:// URL"),
    ],
)
def test_a_database_url_asyncpg_cannot_read_is_named_without_its_password(
    url: str, rule: str
) -> None:
    """Else the process would die in asyncpg's URL parser with a traceback."""
    with pytest.raises(ConfigError) as caught:
        environment.read({"DATABASE_URL": url, "DATABASE_DIRECT_URL": url})
    assert str(caught.value).splitlines() == [
        f"DATABASE_URL: must be {rule}",
        f"DATABASE_DIRECT_URL: must be {rule}",
    ]


def test_postgres_urls_asyncpg_reads_are_accepted() -> None:
    for url in (
        "postgresql://app:p%40ss@db:5432/app",
        "postgres://app@db/app",
        "postgresql://postgres:@/postgres?host=/tmp/pgdata",
    ):
        assert environment.read({"DATABASE_URL": url}).database_url == url
