"""Memory for text turns: the memory tools bound per turn, who a text turn is about, the
bounded tool loop over the conversation model, and sessions kept in Postgres.

The wires (the OpenAI-compatible chat route in `worker.http`) read their transport's fields
and headers and hand this room plain values.
"""

from chat.config import ChatConfig
from chat.identity import CUSTOMER_ID, SessionKind, select_customer, session_id, session_scope
from chat.model import ChatModelFailed, ChatModelTimeout, ConversationModel, Relay
from chat.sessions import (
    SessionAddress,
    SessionBusy,
    SessionNotFound,
    SessionRow,
    TurnRecord,
    TurnRow,
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
    "MEMORY_READ",
    "MEMORY_SAVE",
    "RESERVED",
    "ChatConfig",
    "ChatModelFailed",
    "ChatModelTimeout",
    "ConversationModel",
    "Relay",
    "ReservedToolName",
    "SessionAddress",
    "SessionBusy",
    "SessionKind",
    "SessionNotFound",
    "SessionRow",
    "ToolName",
    "ToolScope",
    "TurnInput",
    "TurnRecord",
    "TurnResult",
    "TurnRow",
    "check_reserved",
    "claim",
    "delete_session",
    "list_sessions",
    "offered_tools",
    "open_session",
    "record",
    "release",
    "run_tool",
    "run_turn",
    "select_customer",
    "session_id",
    "session_scope",
    "thread",
    "tool_specs",
]
