"""Which process an attached agent's code runs in, and where its database comes from.

An agent file is imported by the worker's main process (`python agent.py start`) and again by
each job process livekit starts (which inherits the main process's environment). The embedded
Postgres, used when `DATABASE_URL` is unset, may only be started by the main process of a
command that serves calls, before livekit starts any job process: `CallerMemory.from_env` does
it there, blocking, outside any event loop, and exports `DATABASE_URL` for the job processes.
A job never starts it: a job with no `DATABASE_URL` fails with one line saying what to do.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Sequence

from callmemory.config import CallConfig
from infra.database import database_url
from infra.embedded import EmbeddedStartFailed
from memory.config import ConfigError

SERVING_COMMANDS = frozenset({"start", "dev", "console", "connect"})
"""livekit CLI subcommands that serve calls; `download-files` and help never need a database."""

NO_DATABASE_IN_JOB = (
    "DATABASE_URL: not set in this job process; set it, or declare the agent with"
    " CallerMemory.from_env(...) in the agent file so the worker's main process starts"
    " the embedded Postgres"
)


def serves_calls(argv: Sequence[str], *, main_process: bool) -> bool:
    """Whether this process is a worker's main process about to serve calls."""
    return main_process and len(argv) > 1 and argv[1] in SERVING_COMMANDS


def in_main_process() -> bool:
    """Not a child process (livekit's job processes and its forkserver are children)."""
    return multiprocessing.parent_process() is None


def prepare_database(config: CallConfig, argv: Sequence[str], *, main_process: bool) -> None:
    """Start the embedded Postgres now when this main process serves calls without a URL.

    Raises `ConfigError` (one line) when it does not start.
    """
    if config.database_url or not serves_calls(argv, main_process=main_process):
        return
    try:
        database_url(None, config.data_dir)  # exports DATABASE_URL for the job processes
    except EmbeddedStartFailed as exc:
        raise ConfigError(f"DATABASE_URL: not set, and the {exc}") from None


def job_database_url(config: CallConfig) -> str:
    """The database of a call: configured or exported by the main process, never started here."""
    if not config.database_url:
        raise ConfigError(NO_DATABASE_IN_JOB)
    return config.database_url
