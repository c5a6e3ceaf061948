"""When the web process makes a local console key, and the key file's rules (mode 0600, kept)."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from callmemory import environment
from worker.http.server.auth import MIN_SECRET_CHARS, authenticate, parse_api_keys
from worker.http.server.local_key import (
    FILE_NAME,
    LocalKeyError,
    console_url,
    for_web,
    listens_locally,
    load_or_create,
)
from worker.http.server.web_config import WebConfig, web_config

KEYS = json.dumps([{"name": "ops", "key": "k" * MIN_SECRET_CHARS, "scopes": ["memory:read"]}])


def config(data_dir: Path, **env: str) -> WebConfig:
    given = {"MEMORY_PGDATA": str(data_dir), "WEB_HOST": "127.0.0.1", **env}
    return web_config(environment.read(given), parse_api_keys(given.get("MEMORY_API_KEYS")))


@pytest.mark.parametrize(
    ("host", "local"),
    [
        ("127.0.0.1", True),
        ("localhost", True),
        ("::1", True),
        ("[::1]", True),
        ("127.0.0.2", True),
        ("0.0.0.0", False),
        ("::", False),
        ("192.168.1.10", False),
        ("example.com", False),
    ],
)
def test_only_a_loopback_bind_is_local(host: str, local: bool) -> None:
    assert listens_locally(host) is local


def test_a_first_local_run_creates_a_key_readable_only_by_its_user(tmp_path: Path) -> None:
    served, announce = for_web(config(tmp_path))
    key_file = tmp_path / FILE_NAME
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    secret = key_file.read_text().strip()
    assert len(secret) >= MIN_SECRET_CHARS
    assert authenticate(served.api_keys, f"Bearer {secret}").name == "local"
    assert announce is not None and secret in announce(8080)

    again, announce = for_web(config(tmp_path))  # the next run: the same key, not printed
    assert authenticate(again.api_keys, f"Bearer {secret}").name == "local"
    assert announce is not None and secret not in announce(8080)
    assert str(key_file) in announce(8080)


def test_configured_keys_create_nothing(tmp_path: Path) -> None:
    given = config(tmp_path, MEMORY_API_KEYS=KEYS)
    served, announce = for_web(given)
    assert (served, announce) == (given, None)
    assert not (tmp_path / FILE_NAME).exists()


@pytest.mark.parametrize("host", ["0.0.0.0", "10.1.2.3", "::"])
def test_a_bind_beyond_this_machine_creates_nothing(tmp_path: Path, host: str) -> None:
    given = config(tmp_path, WEB_HOST=host)
    served, announce = for_web(given)
    assert (served, announce) == (given, None)
    assert not (tmp_path / FILE_NAME).exists()


def test_an_own_database_creates_nothing(tmp_path: Path) -> None:
    given = config(tmp_path, DATABASE_URL="postgresql://app@127.0.0.1/app")
    assert for_web(given) == (given, None)
    assert not (tmp_path / FILE_NAME).exists()


def test_a_key_file_others_can_read_is_refused(tmp_path: Path) -> None:
    load_or_create(tmp_path)
    (tmp_path / FILE_NAME).chmod(0o644)
    with pytest.raises(LocalKeyError, match=r"readable by others \(mode 644\)"):
        load_or_create(tmp_path)


def test_a_key_file_without_a_key_is_refused(tmp_path: Path) -> None:
    (tmp_path / FILE_NAME).write_text("x" * (MIN_SECRET_CHARS - 1))
    (tmp_path / FILE_NAME).chmod(0o600)
    with pytest.raises(LocalKeyError, match="holds no key"):
        load_or_create(tmp_path)
    (tmp_path / FILE_NAME).write_text("x" * MIN_SECRET_CHARS)  # at the limit: a key
    assert load_or_create(tmp_path).secret == "x" * MIN_SECRET_CHARS


def test_the_console_address_brackets_an_ipv6_host() -> None:
    assert console_url("::1", 8080) == "http://[::1]:8080/memory/"
    assert console_url("localhost", 0) == "http://localhost:0/memory/"
