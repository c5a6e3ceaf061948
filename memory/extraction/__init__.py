"""The one model call of an add: the request built from plain values, the prompts, the
provider client (one POST, never retried) and the telemetry of each call.
"""

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
    "request_failed",
    "response_format",
]
