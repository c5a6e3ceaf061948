"""The local console key: a first `make run` opens the console without configuring keys.

When no `MEMORY_API_KEYS` are configured, the web process listens only on this machine
(`WEB_HOST` is `localhost` or a loopback address) and the database is the embedded one, the
process creates one key with every scope, once, in the embedded server's data directory
(`console-key`, mode 0600), and serves with it. The key is printed once, the run that creates
it, as a console address that signs in (`/memory/#key=...`: the console reads the fragment
into the tab's session and removes it from the address bar). Later runs print the address and
the file's path, never the key; logs carry only the path. With keys configured, another bind
address or `DATABASE_URL`, nothing is created or read.
"""

from __future__ import annotations

import ipaddress
import json
import os
import secrets
import stat
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import structlog

from infra.embedded import default_data_dir
from worker.http.server.auth import MIN_SECRET_CHARS, SCOPES, ApiKey, parse_api_keys
from worker.http.server.web_config import WebConfig

log = structlog.get_logger(__name__)

FILE_NAME = "console-key"
KEY_NAME = "local"  # the actor the activity log names


class LocalKeyError(RuntimeError):
    """The key file cannot be used; one line naming the file and what to do."""


@dataclass(frozen=True, slots=True)
class LocalKey:
    path: Path
    secret: str
    created: bool  # this run created it: the only run that prints the secret

    @property
    def api_key(self) -> ApiKey:
        entry = {"name": KEY_NAME, "key": self.secret, "scopes": list(SCOPES)}
        return parse_api_keys(json.dumps([entry]))[0]


def listens_locally(host: str) -> bool:
    """Whether `host` (`WEB_HOST`) reaches this machine only: `localhost` or a loopback IP."""
    host = host.strip().strip("[]")
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def wanted(*, keys_configured: bool, host: str, embedded: bool) -> bool:
    """A local key only for a first local run: no keys, a loopback bind, the embedded server."""
    return not keys_configured and embedded and listens_locally(host)


def load_or_create(data_dir: Path) -> LocalKey:
    """The key kept in `data_dir`, created (mode 0600) when there is none."""
    path = data_dir / FILE_NAME
    secret = secrets.token_urlsafe(32)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return LocalKey(path, _read(path), created=False)
    with os.fdopen(fd, "w") as file:
        file.write(secret + "\n")
    return LocalKey(path, secret, created=True)


def _read(path: Path) -> str:
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        raise LocalKeyError(
            f"{path} is readable by others (mode {mode:o}): `chmod 600` it or delete it"
        )
    secret = path.read_text("utf-8").strip()
    if len(secret) < MIN_SECRET_CHARS:
        raise LocalKeyError(f"{path} holds no key ({MIN_SECRET_CHARS}+ characters): delete it")
    return secret


def console_url(host: str, port: int) -> str:
    host = host.strip().strip("[]")
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/memory/"


def notice(key: LocalKey, url: str) -> str:
    """What the process prints once it listens: the secret only on the run that created it."""
    if key.created:
        return (
            f"Console: {url}#key={key.secret}\n"
            f"  (opens signed in with a local key, created in {key.path} and printed only now)"
        )
    return (
        f"Console: {url} (sign in with the local key in {key.path}:"
        f' open "{url}#key=$(cat {key.path})")'
    )


Announce = Callable[[int], str]  # the bound port -> the lines to print


def for_web(config: WebConfig) -> tuple[WebConfig, Announce | None]:
    """`config` serving with the local key when one is wanted, and what to print once listening.

    Runs after the embedded server started (its data directory exists). Raises
    `LocalKeyError` or `OSError` when the key file cannot be read or written.
    """
    host = config.address[0]
    if not wanted(
        keys_configured=bool(config.api_keys), host=host, embedded=config.database_url is None
    ):
        return config, None
    key = load_or_create(default_data_dir(config.data_dir))
    log.info("web.local_key", path=str(key.path), new=key.created)  # never the key
    return replace(config, api_keys=(key.api_key,)), lambda port: notice(
        key, console_url(host, port)
    )
