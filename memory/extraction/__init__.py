"""The one model call of an add: the request built from plain values, the prompts, the
provider client (one POST, never retried) and the telemetry of each call.
"""

import importlib

from memory.extraction._client import ProviderClient, ProviderRequestFailed
from memory.extraction._prompts import inert_json, prompt
from memory.extraction._provider import ExtractionModel, check_key, json_body, request_failed
from memory.extraction._request import Conversation, build_prompt, handles_for, response_format
from memory.extraction._telemetry import ExtractionRecord

__all__ = [
    "Conversation",
    "ExtractionModel",
    "ExtractionRecord",
    "ProviderClient",
    "ProviderRequestFailed",
    "build_prompt",
    "check_key",
    "handles_for",
    "inert_json",
    "json_body",
    "prompt",
    "register_metrics",
    "request_failed",
    "response_format",
]


def register_metrics() -> None:
    """Register the extraction metrics now (idempotent). They load with the first add
    otherwise; a process that serves `/metrics` calls this at start, so they show from its
    first scrape (and a CLI command never imports prometheus_client)."""
    importlib.import_module("memory.extraction._metrics")
