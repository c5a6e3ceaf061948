"""aiohttp's own error lines, without anything the client sent.

aiohttp's request handler logs a malformed request head (a header value with a control
character, a line without a colon, a bad request line) with the parser's exception, whose
message quotes the raw line (an `Authorization` header, bearer key included), and a traceback,
at error level. The web process hands the handler this logger instead: every such line becomes
one static event naming the kind of error (and the status aiohttp answers), never its message,
never a traceback. A client's malformed request is a warning; anything else aiohttp reports
(an exception past every middleware) stays an error.
"""

from __future__ import annotations

import logging
import sys
from typing import Any

from aiohttp.http_exceptions import HttpProcessingError

MALFORMED = "http.malformed_request"
FAILED = "http.server_failed"


class ServerLog(logging.LoggerAdapter[logging.Logger]):
    """A drop-in for aiohttp's `server_logger` that keeps only the kind of each error."""

    def log(self, level: int, msg: object, *args: object, **kwargs: Any) -> None:
        if not self.isEnabledFor(level):
            return
        error = _error_of(kwargs.get("exc_info"))
        fields = server_event(error)
        if fields["event"] == MALFORMED and level > logging.WARNING:
            level = logging.WARNING
        event = fields.pop("event")
        self.logger.log(level, event, extra=fields)


def server_event(error: BaseException | None) -> dict[str, Any]:
    """The fields logged for `error`: the event, the kind, the status a malformed head gets."""
    if isinstance(error, HttpProcessingError):
        return {"event": MALFORMED, "error_type": type(error).__name__, "status": error.code}
    kind = type(error).__name__ if error is not None else None
    return {"event": FAILED, "error_type": kind}


def _error_of(exc_info: object) -> BaseException | None:
    if isinstance(exc_info, BaseException):
        return exc_info
    if isinstance(exc_info, tuple) and exc_info and isinstance(exc_info[1], BaseException):
        return exc_info[1]
    if exc_info:
        return sys.exc_info()[1]
    return None


def server_log() -> ServerLog:
    return ServerLog(logging.getLogger("aiohttp.server"))
