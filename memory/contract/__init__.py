"""The memory contract as values and rules: facts, calls, limits, error codes, the result
envelope, and the validation of what enters (requests, model answers, strict JSON).

Pure: no I/O, and nothing of the other rooms.
"""

from memory.contract import _limits as limits
from memory.contract import _requests as requests
from memory.contract import _strict_json as strict_json
from memory.contract._envelope import ErrorInfo, Result
from memory.contract._errors import (
    FAILURES,
    CapabilityUnavailable,
    CodedError,
    Conflict,
    CursorExpired,
    InvalidModelOutput,
    InvalidRequest,
    MemoryFailure,
    ModelFailed,
    PersistFailed,
    SchemaMissing,
    Unavailable,
)
from memory.contract._limits import DEFAULT_RECALL_CALLS, MAX_HISTORY_VERSIONS, MAX_RECALL_CALLS
from memory.contract._models import (
    AddOutcome,
    AppliedOp,
    CallMetadata,
    CallRecord,
    Change,
    DeleteOutcome,
    EndedBy,
    Fact,
    FactVersion,
    History,
    PassContext,
    Recall,
    Utterance,
    Written,
)
from memory.contract._operations import Plan, plan
from memory.contract._provenance import (
    KINDS,
    MAX_EVIDENCE_CHARS,
    MAX_REASON_CHARS,
    UNKNOWN_CHANNEL,
    OpNote,
    Source,
    Writer,
    found_evidence,
    normalised,
    op_source,
    source_json,
    source_of,
    write_source,
)
from memory.contract._provenance import UNKNOWN as UNKNOWN_SOURCE
from memory.contract._requests import transcript
from memory.contract._strict_json import FORBIDDEN_RULE, JsonRejected, forbidden_character, loads

__all__ = [
    "DEFAULT_RECALL_CALLS",
    "FAILURES",
    "FORBIDDEN_RULE",
    "KINDS",
    "MAX_EVIDENCE_CHARS",
    "MAX_HISTORY_VERSIONS",
    "MAX_REASON_CHARS",
    "MAX_RECALL_CALLS",
    "UNKNOWN_CHANNEL",
    "UNKNOWN_SOURCE",
    "AddOutcome",
    "AppliedOp",
    "CallMetadata",
    "CallRecord",
    "CapabilityUnavailable",
    "Change",
    "CodedError",
    "Conflict",
    "CursorExpired",
    "DeleteOutcome",
    "EndedBy",
    "ErrorInfo",
    "Fact",
    "FactVersion",
    "History",
    "InvalidModelOutput",
    "InvalidRequest",
    "JsonRejected",
    "MemoryFailure",
    "ModelFailed",
    "OpNote",
    "PassContext",
    "PersistFailed",
    "Plan",
    "Recall",
    "Result",
    "SchemaMissing",
    "Source",
    "Unavailable",
    "Utterance",
    "Writer",
    "Written",
    "forbidden_character",
    "found_evidence",
    "limits",
    "loads",
    "normalised",
    "op_source",
    "plan",
    "requests",
    "source_json",
    "source_of",
    "strict_json",
    "transcript",
    "write_source",
]
