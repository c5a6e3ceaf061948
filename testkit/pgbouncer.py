"""A real PgBouncer (the distribution's `pgbouncer` binary) in transaction mode in front of a
test Postgres, for the suites run `--through-pgbouncer` (docs/testing.md).

PgBouncer refuses to run as root: as root it runs as the owner of the server's socket
directory (the embedded server's system user), which can reach the socket. Clients log in
without a password (`auth_type trust`, loopback only). Each database gets at most
`POOL_SIZE` server connections, shared by every client of that database, so consecutive
transactions of one client really do land on different server connections.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

POOL_SIZE = 4
START_SECONDS = 10.0


class PgBouncerMissing(RuntimeError):
    """The `pgbouncer` binary is not installed; the message says how to install it."""


def find_binary() -> str:
    found = shutil.which("pgbouncer") or shutil.which("pgbouncer", path="/usr/sbin:/usr/bin")
    if found is None:
        raise PgBouncerMissing(
            "pgbouncer is not installed: apt-get install -y pgbouncer (Debian, Ubuntu)"
        )
    return found


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def upstream(url: str) -> tuple[str, int, str]:
    """Host (or socket directory), port and user of a Postgres URL."""
    parts = urlsplit(url)
    query = parse_qs(parts.query)
    host = query.get("host", [parts.hostname or "127.0.0.1"])[0]
    port = int(query.get("port", [parts.port or 5432])[0])
    return host, port, parts.username or "postgres"


def upstream_password(url: str) -> str:
    """The password of a Postgres URL ("" for none): a password-protected server needs it."""
    return unquote(urlsplit(url).password or "")


def _ini(work: Path, target: tuple[str, int, str], port: int) -> str:
    host, server_port, _ = target
    return f"""[databases]
* = host={host} port={server_port}

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = {port}
unix_socket_dir =
auth_type = trust
auth_file = {work}/users.txt
pool_mode = transaction
default_pool_size = {POOL_SIZE}
max_client_conn = 2000
server_lifetime = 3600
logfile = {work}/pgbouncer.log
pidfile = {work}/pgbouncer.pid
"""


class PgBouncer:
    """One PgBouncer process; `url_for(database)` is the address clients use."""

    def __init__(self, server_url: str) -> None:
        self._target = upstream(server_url)
        self._password = upstream_password(server_url)
        self.port = _free_port()
        self._work = Path(tempfile.mkdtemp(prefix="caller-memory-pgbouncer-"))
        self._process: subprocess.Popen[bytes] | None = None

    def url_for(self, database: str) -> str:
        return f"postgresql://{self._target[2]}@127.0.0.1:{self.port}/{database}"

    def _run_as(self) -> list[str]:
        if os.geteuid() != 0:
            return []
        host = Path(self._target[0])
        owner = host.owner() if host.is_dir() else "nobody"
        for path in (self._work, *self._work.iterdir()):
            shutil.chown(path, owner)
        return ["runuser", "-u", owner, "--"]

    def start(self) -> None:
        binary = find_binary()
        # the user's password, for PgBouncer's own login to a password-protected server
        secret = self._password.replace('"', '""')
        (self._work / "users.txt").write_text(f'"{self._target[2]}" "{secret}"\n')
        (self._work / "pgbouncer.ini").write_text(_ini(self._work, self._target, self.port))
        command = [*self._run_as(), binary, str(self._work / "pgbouncer.ini")]
        self._process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                break
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"pgbouncer did not start; its log: {self.log_tail()}")

    def log_tail(self, chars: int = 2000) -> str:
        path = self._work / "pgbouncer.log"
        return path.read_text(errors="replace")[-chars:] if path.exists() else "(none)"

    def stop(self) -> None:
        if self._process is not None and self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        shutil.rmtree(self._work, ignore_errors=True)
