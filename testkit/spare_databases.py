"""Test databases cloned from the migrated template ahead of the test that takes one.

`CREATE DATABASE ... TEMPLATE` copies the whole template (system catalogs included, about
9 MB) and is the largest fixed cost of a test that needs a database. One thread per test
process keeps `ahead` clones ready and drops the used ones, on its own connection, while tests
run: a test takes a clone that is already there, and hands it back to be dropped without
waiting for the drop. A clone that could not be made is raised in the test that takes it.
"""

from __future__ import annotations

import asyncio
import queue
import threading
import uuid
from typing import Final

import asyncpg

from testkit.databases import drop_database

_MAKE: Final = object()
_STOP: Final = object()
TAKE_TIMEOUT_SECONDS: Final = 120.0


class SpareDatabases:
    """Clones of `template` on the server at `admin_url`, made `ahead` at a time."""

    def __init__(self, admin_url: str, template: str, *, ahead: int = 2) -> None:
        self._admin_url = admin_url
        self._template = template
        self._ready: queue.Queue[str | BaseException] = queue.Queue()
        self._work: queue.Queue[object] = queue.Queue()
        for _ in range(ahead):
            self._work.put(_MAKE)
        self._thread = threading.Thread(target=self._serve, name="spare-databases", daemon=True)
        self._thread.start()

    def take(self) -> str:
        """A fresh clone's name (blocks until one is ready); another is made in its place."""
        made = self._ready.get(timeout=TAKE_TIMEOUT_SECONDS)
        self._work.put(_MAKE)
        if isinstance(made, BaseException):
            raise made
        return made

    def drop(self, name: str) -> None:
        """Drop `name` in the background (its sessions are ended: `drop ... with (force)`)."""
        self._work.put(name)

    def close(self) -> None:
        """Finish the drops asked for, drop the clones nobody took, and stop the thread."""
        self._work.put(_STOP)
        self._thread.join(timeout=TAKE_TIMEOUT_SECONDS)

    def _serve(self) -> None:
        loop = asyncio.new_event_loop()
        try:
            loop.run_until_complete(self._jobs())
        finally:
            loop.close()

    async def _jobs(self) -> None:
        while (job := self._work.get()) is not _STOP:
            if job is _MAKE:
                self._ready.put(await self._clone())
            else:
                await self._drop(str(job))
        while not self._ready.empty():
            if isinstance(left := self._ready.get_nowait(), str):
                await self._drop(left)

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
