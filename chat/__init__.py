"""Memory for text turns: the memory tools bound per turn, who a text turn is about, the
bounded tool loop over the conversation model, and sessions kept in Postgres.

The wires (the OpenAI-compatible chat route in `worker.http`) read their transport's fields
and headers and hand this room plain values; a LiveKit text session (`callmemory.text`) binds
its turns with `bind_turn`. The identities map's rules are in `chat.identities`.
"""

from chat.binding import TurnBinding, attribute_identities, bind_turn
from chat.config import ChatConfig
from chat.identity import (
    CUSTOMER_ID,
    SessionKind,
    select_customer,
    session_customers,
    session_id,
    session_scope,
)
from chat.model import ChatModelFailed, ChatModelTimeout, ConversationModel, Relay
from chat.session_claim import Claim, ClaimLost, OpenedTurn, address_of, open_turn, renew
from chat.session_lease import LEASE_SECONDS, kept_lease
from chat.sessions import (
    MAX_LIST,
    SessionAddress,
    SessionBusy,
    SessionNotFound,
    SessionRow,
    TurnRecord,
    TurnRow,
    check_session_id,
    claim,
    delete_session,
    list_sessions,
    open_session,
    record,
    release,
    thread,
)
from chat.tools import (
    MEMORY_READ,
    MEMORY_SAVE,
    RESERVED,
    ReservedToolName,
    ToolName,
    ToolScope,
    check_reserved,
    offered_tools,
    run_tool,
    tool_specs,
)
from chat.turn import TurnInput, TurnResult, run_turn

__all__ = [
    "CUSTOMER_ID",
    "LEASE_SECONDS",
    "MAX_LIST",
    "MEMORY_READ",
    "MEMORY_SAVE",
    "RESERVED",
    "ChatConfig",
    "ChatModelFailed",
    "ChatModelTimeout",
    "Claim",
    "ClaimLost",
    "ConversationModel",
    "OpenedTurn",
    "Relay",
    "ReservedToolName",
    "SessionAddress",
    "SessionBusy",
    "SessionKind",
    "SessionNotFound",
    "SessionRow",
    "ToolName",
    "ToolScope",
    "TurnBinding",
    "TurnInput",
    "TurnRecord",
    "TurnResult",
    "TurnRow",
    "address_of",
    "attribute_identities",
    "bind_turn",
    "check_reserved",
    "check_session_id",
    "claim",
    "delete_session",
    "kept_lease",
    "list_sessions",
    "offered_tools",
    "open_session",
    "open_turn",
    "record",
    "release",
    "renew",
    "run_tool",
    "run_turn",
    "select_customer",
    "session_customers",
    "session_id",
    "session_scope",
    "thread",
    "tool_specs",
]
