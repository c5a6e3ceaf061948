"""The job metadata contract: what the server tells a job about its call, written and read here.

The web process (and the `dial` command) dispatch an agent with metadata that the server owns and
no participant can change. It is a JSON object; every field is optional and unknown fields are
ignored:

    {"identities": {"email": "ada@example.com", "contact.email": "..."},
     "dialed_number": "+34600000000",
     "outbound": {"trunk_id": "ST_..."}}

`identities` names who a browser test call or an outbound call is about (checked by
`chat.identities` before it is written). `dialed_number` with `outbound.trunk_id` asks the job
to dial that number first; the number is then also the callee's `phoneNumber` identity, unless
`identities` names a `phoneNumber` of its own. Values are kept exactly as given (no trimming,
case or Unicode normalisation); JSON is written 7-bit and reads back every code point exactly.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum


class MetadataProblem(StrEnum):
    """Why job metadata was rejected."""

    NOT_JSON = "not_json"
    NOT_OBJECT = "not_object"
    IDENTITIES_NOT_OBJECT = "identities_not_object"
    IDENTITY_NOT_STRING = "identity_not_string"
    DIALED_NUMBER_NOT_STRING = "dialed_number_not_string"


@dataclass(frozen=True, slots=True)
class OutboundPlan:
    """What a job dispatched for an outbound call must dial."""

    number: str
    trunk_id: str


@dataclass(frozen=True, slots=True)
class JobMetadata:
    """What the server said about this call when it dispatched the agent."""

    identities: Mapping[str, str] = field(default_factory=dict)
    dialed_number: str | None = None
    problem: MetadataProblem | None = None
    """Set when the metadata was malformed; identities and dialed number are then empty."""
    outbound: OutboundPlan | None = None
    """Set when the job must dial before anyone is on the line."""


def browser_metadata(identities: Mapping[str, str]) -> str:
    """Metadata for a browser test call: only the checked identities."""
    return _dumps({"identities": dict(identities)})


def outbound_metadata(
    dialed_number: str, trunk_id: str, identities: Mapping[str, str] | None = None
) -> str:
    """Metadata for a call the job must dial, with the callee's checked identities; the
    number is also the callee's `phoneNumber` unless `identities` names one."""
    return _dumps(
        {
            "identities": dict(identities or {}),
            "dialed_number": dialed_number,
            "outbound": {"trunk_id": trunk_id},
        }
    )


def parse_job_metadata(raw: str | None) -> JobMetadata:
    """Read `ctx.job.metadata`; empty means nothing was supplied, malformed names its problem."""
    if raw is None or not raw.strip():
        return JobMetadata()
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        return JobMetadata(problem=MetadataProblem.NOT_JSON)
    if not isinstance(data, dict):
        return JobMetadata(problem=MetadataProblem.NOT_OBJECT)
    return _with_plan(_read_fields(data), _outbound(data))


def outbound_plan(raw: str | None) -> OutboundPlan | None:
    """The dial plan in job metadata, or None when this job is not an outbound call."""
    return parse_job_metadata(raw).outbound


def _read_fields(data: dict[str, object]) -> JobMetadata:
    identities = data.get("identities", {})
    if not isinstance(identities, dict):
        return JobMetadata(problem=MetadataProblem.IDENTITIES_NOT_OBJECT)
    if not all(isinstance(value, str) for value in identities.values()):
        return JobMetadata(problem=MetadataProblem.IDENTITY_NOT_STRING)
    dialed = data.get("dialed_number")
    if dialed is not None and not isinstance(dialed, str):
        return JobMetadata(problem=MetadataProblem.DIALED_NUMBER_NOT_STRING)
    return JobMetadata(identities=dict(identities), dialed_number=dialed)


def _outbound(data: dict[str, object]) -> OutboundPlan | None:
    """A dial plan needs both a number and a trunk; a malformed identities map does not stop it."""
    outbound, number = data.get("outbound"), data.get("dialed_number")
    if not isinstance(outbound, dict) or not isinstance(number, str):
        return None
    trunk_id = outbound.get("trunk_id")
    return OutboundPlan(number, trunk_id) if isinstance(trunk_id, str) else None


def _with_plan(metadata: JobMetadata, plan: OutboundPlan | None) -> JobMetadata:
    if plan is None:
        return metadata
    return JobMetadata(metadata.identities, metadata.dialed_number, metadata.problem, plan)


def _dumps(value: object) -> str:
    # ensure_ascii keeps the metadata 7-bit; json.loads restores every code point exactly
    return json.dumps(value, ensure_ascii=True, separators=(",", ":"))
