"""The identities map's rules, now in `chat.identities` (a LiveKit text session checks its
participant's attributes with them too, below `callmemory`); re-exported for the wires."""

from chat.identities import (
    CUSTOMER_ID,
    MAX_ENTRIES,
    MAX_HEADER_BYTES,
    MAX_NAME_CHARS,
    MAX_VALUE_CHARS,
    IdentitiesRule,
    InvalidIdentities,
    check_identities,
    check_value,
    merge_customer_id,
)

__all__ = [
    "CUSTOMER_ID",
    "MAX_ENTRIES",
    "MAX_HEADER_BYTES",
    "MAX_NAME_CHARS",
    "MAX_VALUE_CHARS",
    "IdentitiesRule",
    "InvalidIdentities",
    "check_identities",
    "check_value",
    "merge_customer_id",
]
