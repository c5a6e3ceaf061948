"""Optional OpenTelemetry spans for recall and save (`memory.recall`, `memory.save`).

Off unless the entry point of a process (the web process, a CLI command, a LiveKit job) calls
`configure` with an endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT`): then the first span installs an
OTLP/HTTP exporter, which reads the standard `OTEL_EXPORTER_OTLP_*` variables itself. Spans are
exported in batches; a LiveKit job process exits without running exit hooks, so a call `flush`es
its spans once it is saved.
Attributes carry the agent id, outcome and error code, the recall's fact and call counts, the
save's model and tokens: never a user id, a transcript or fact text, nor an exception's message.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the API loads with the first span: a process without tracing never does
    from opentelemetry.trace import Span, Tracer, TracerProvider

SERVICE_NAME = "caller-memory"
Attribute = str | int | float | bool

FLUSH_SECONDS = 2.0
"""The longest a call's end waits for its spans to be exported."""

_tracer: Tracer | None = None
_provider: TracerProvider | None = None
_decided = False
_endpoint: str | None = None


def use(provider: TracerProvider | None) -> None:
    """Send this process's spans to `provider` (None: no spans), instead of the environment's."""
    global _tracer, _provider, _decided  # noqa: PLW0603  (one tracer per process, by design)
    _tracer, _decided = (None if provider is None else provider.get_tracer(SERVICE_NAME)), True
    _provider = provider


async def flush(timeout_seconds: float = FLUSH_SECONDS) -> bool:
    """Export the spans this process still holds (False: some did not go within the time)."""
    force_flush = getattr(_provider, "force_flush", None)  # the SDK's provider has it
    if force_flush is None:
        return True
    return bool(await asyncio.to_thread(force_flush, int(timeout_seconds * 1000)))


def configure(endpoint: str | None) -> None:
    """Spans on (an OTLP endpoint) or off (None) for this process, unless already decided."""
    global _endpoint  # noqa: PLW0603  (one decision per process, by its entry point)
    _endpoint = endpoint


def _process_tracer() -> Tracer | None:
    global _decided  # noqa: PLW0603
    if not _decided:
        _decided = True
        if _endpoint:
            use(_otlp_provider())
    return _tracer


def _otlp_provider() -> TracerProvider:
    # imported only when tracing is on: the SDK and exporter cost start-up time otherwise
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import (  # noqa: PLC0415
        OTLPSpanExporter,
    )
    from opentelemetry.sdk.resources import Resource  # noqa: PLC0415
    from opentelemetry.sdk.trace import TracerProvider as SdkProvider  # noqa: PLC0415
    from opentelemetry.sdk.trace.export import BatchSpanProcessor  # noqa: PLC0415

    provider = SdkProvider(resource=Resource.create({"service.name": SERVICE_NAME}))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    return provider


@contextmanager
def span(name: str, agent_id: object) -> Iterator[Span | None]:
    """A span around one recall or save, or None when tracing is off."""
    tracer = _process_tracer()
    if tracer is None:
        yield None
        return
    scope = agent_id if isinstance(agent_id, str) else ""
    attributes = {"memory.agent_id": scope}
    # an exception's message could quote content: only the span's status records it
    with tracer.start_as_current_span(
        name, attributes=attributes, record_exception=False
    ) as current:
        yield current


def finish(current: Span | None, error_code: str | None, **counts: Attribute | None) -> None:
    """The outcome and content-free figures of the span (None values are left out)."""
    if current is None:
        return
    from opentelemetry.trace import StatusCode  # noqa: PLC0415  (a span exists: tracing is on)

    current.set_attribute("memory.outcome", "failed" if error_code else "ok")
    if error_code:
        current.set_attribute("memory.error_code", error_code)
        current.set_status(StatusCode.ERROR, error_code)
    for key, value in counts.items():
        if value is not None:
            current.set_attribute(f"memory.{key}", value)


def record(name: str, agent_id: str, started_ns: int, **counts: Attribute | None) -> None:
    """A span of work that already ended, begun at `started_ns` (`time.time_ns()`): for a
    statement that turned out to do it (the call opening's recall, `callmemory.runtime`)."""
    tracer = _process_tracer()
    if tracer is None:
        return
    current = tracer.start_span(
        name, attributes={"memory.agent_id": agent_id}, start_time=started_ns
    )
    finish(current, None, **counts)
    current.end()
