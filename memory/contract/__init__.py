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
from memory.contract._requests import transcript
from memory.contract._strict_json import FORBIDDEN_RULE, JsonRejected, forbidden_character, loads

__all__ = [
    "DEFAULT_RECALL_CALLS",
    "FAILURES",
    "FORBIDDEN_RULE",
    "MAX_HISTORY_VERSIONS",
    "MAX_RECALL_CALLS",
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
    "PassContext",
    "PersistFailed",
    "Plan",
    "Recall",
    "Result",
    "SchemaMissing",
    "Unavailable",
    "Utterance",
    "Written",
    "forbidden_character",
    "limits",
    "loads",
    "plan",
    "requests",
    "strict_json",
    "transcript",
]
