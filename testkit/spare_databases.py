"""Test databases made ahead of the test that takes one: clones of the migrated template, and
used databases emptied back to the template's state.

`CREATE DATABASE ... TEMPLATE` copies the whole template (system catalogs included, about
9 MB) and is the largest fixed cost of a test that needs a database (a third of a second and
more on a busy machine). One thread per test process keeps databases ready on its own
connections while tests run: a test takes one that is already there and hands it back without
waiting. With `reuse` (a superuser on the server), a database handed back has its sessions
ended and is emptied back to the template's rows when its schema is still the template's
(`testkit.database_reset`), then waits for the next test; any other is dropped, and a clone
takes its place. A database that could not be made is raised in the test that takes it.
"""

from __future__ import annotations

import asyncio
import queue
import threading
import time
import uuid
from typing import Final

import asyncpg

from testkit.database_reset import Baseline, capture, reset
from testkit.databases import drop_database, with_database

_MAKE: Final = object()
_STOP: Final = object()
TAKE_TIMEOUT_SECONDS: Final = 120.0
_SESSIONS_GONE_SECONDS: Final = 5.0
_OTHERS = """select pg_terminate_backend(pid) from pg_stat_activity
    where datname = $1 and pid <> pg_backend_pid() and backend_type = 'client backend'"""
_ANY_LEFT = """select count(*) from pg_stat_activity
    where datname = $1 and pid <> pg_backend_pid() and backend_type = 'client backend'"""


class SpareDatabases:
    """Databases like `template` on the server at `admin_url`, `ahead` of them ready."""

    def __init__(
        self, admin_url: str, template: str, *, ahead: int = 2, reuse: bool = False
    ) -> None:
        self._admin_url = admin_url
        self._template = template
        self._reuse = reuse
        self._baseline: Baseline | None = None
        # databases made ready by a reset, owed against the next asks to make: a count, not the
        # ready queue's size, which is low exactly when this thread lags behind the tests (a
        # clone then, several times a reset's cost, made it lag more: 116 clones in tests/api
        # against 12 with the count, the first ones included)
        self._credit = 0
        self._ready: queue.Queue[str | BaseException] = queue.Queue()
        self._work: queue.Queue[object] = queue.Queue()
        for _ in range(ahead):
            self._work.put(_MAKE)
        self._thread = threading.Thread(target=self._serve, name="spare-databases", daemon=True)
        self._thread.start()

    def take(self) -> str:
        """A fresh database's name (blocks until one is ready); another is made in its place."""
        made = self._ready.get(timeout=TAKE_TIMEOUT_SECONDS)
        self._work.put(_MAKE)
        if isinstance(made, BaseException):
            raise made
        return made

    def hand_back(self, name: str) -> None:
        """Hand `name` back: emptied for another test, or dropped, in the background."""
        self._work.put(name)

    def close(self) -> None:
        """Finish the work asked for, drop every database left, and stop the thread."""
        self._work.put(_STOP)
        self._thread.join(timeout=TAKE_TIMEOUT_SECONDS)

    def _serve(self) -> None:
        loop = asyncio.new_event_loop()
        try:
            loop.run_until_complete(self._jobs())
        finally:
            loop.close()

    async def _jobs(self) -> None:
        if self._reuse:
            self._baseline = await self._read_baseline()
        while (job := self._work.get()) is not _STOP:
            if job is not _MAKE:
                await self._recycle(str(job))
            elif self._credit:
                self._credit -= 1
            else:
                self._ready.put(await self._clone())
        while not self._ready.empty():
            if isinstance(left := self._ready.get_nowait(), str):
                await self._drop(left)

    async def _read_baseline(self) -> Baseline | None:
        try:
            conn = await asyncpg.connect(with_database(self._admin_url, self._template))
            try:
                return await capture(conn)
            finally:
                await conn.close()
        except (asyncpg.PostgresError, OSError):
            return None  # every database is then cloned

    async def _recycle(self, name: str) -> None:
        """Make `name` ready again if it can be emptied back to the template; else drop it."""
        if self._baseline is not None and await self._emptied(name, self._baseline):
            self._credit += 1
            self._ready.put(name)
        else:
            await self._drop(name)

    async def _emptied(self, name: str, baseline: Baseline) -> bool:
        try:
            admin = await asyncpg.connect(self._admin_url)
            try:
                if not await _sessions_ended(admin, name):
                    return False
            finally:
                await admin.close()
            conn = await asyncpg.connect(with_database(self._admin_url, name))
            try:
                return await reset(conn, baseline)
            finally:
                await conn.close()
        except (asyncpg.PostgresError, OSError):
            return False

    async def _clone(self) -> str | BaseException:
        """A new clone, each on a connection of its own (a test may have restarted the server)."""
        name = "t_" + uuid.uuid4().hex[:12]
        try:
            admin = await asyncpg.connect(self._admin_url)
            try:
                await admin.execute(f'create database "{name}" template "{self._template}"')
            finally:
                await admin.close()
        except (asyncpg.PostgresError, OSError) as exc:
            return exc
        return name

    async def _drop(self, name: str) -> None:
        try:
            admin = await asyncpg.connect(self._admin_url)
            try:
                await drop_database(admin, name)
            finally:
                await admin.close()
        except (asyncpg.PostgresError, OSError):
            pass  # a server gone with its databases; the worker's data directory is removed


async def _sessions_ended(admin: asyncpg.Connection, name: str) -> bool:
    """End every other client session on `name` and wait (briefly) until they are gone."""
    await admin.execute(_OTHERS, name)
    deadline = time.monotonic() + _SESSIONS_GONE_SECONDS
    while await admin.fetchval(_ANY_LEFT, name):
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.01)
    return True
