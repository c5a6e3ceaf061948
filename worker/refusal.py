"""A command line refusal: one line for stderr and the exit code, from any typed failure."""

from __future__ import annotations

from typing import Final

from memory.contract import ErrorInfo
from worker.http.server.statuses import status_for

EXIT_FAILED: Final = 1
"""Something else failed: the database, the model provider, LiveKit."""
EXIT_USAGE: Final = 2
"""Bad input or configuration: fix the command or the environment."""


class Refused(Exception):
    def __init__(self, exit_code: int, message: str) -> None:
        super().__init__(message)
        self.exit_code = exit_code
        self.message = message


def refused(error: ErrorInfo) -> Refused:
    """A memory API error as a refusal: an HTTP 4xx code is bad input (exit 2), else exit 1."""
    where = f" (field {error.field})" if error.field else ""
    exit_code = EXIT_USAGE if 400 <= status_for(error.code) < 500 else EXIT_FAILED
    return Refused(exit_code, f"{error.code}: {error.message}{where}")
