"""Memory for text turns: the memory tools bound per turn, who a text turn is about, the
bounded tool loop over the conversation model, and sessions kept in Postgres.

The wires (the OpenAI-compatible chat route in `worker.http`) read their transport's fields
and headers and hand this room plain values; a LiveKit text session (`callmemory.text`) binds
its turns with `bind_turn`. The identities map's rules are in `chat.identities`.
"""

from chat.binding import TurnBinding, attribute_identities, bind_turn
from chat.config import ChatConfig
from chat.identity import CUSTOMER_ID, SessionKind, select_customer, session_id, session_scope
from chat.model import ChatModelFailed, ChatModelTimeout, ConversationModel, Relay
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
from chat.toolbox import (
    DEFAULT_TOOL_SECONDS,
    InvalidArguments,
    NoToolContext,
    Tool,
    ToolContext,
    ToolOutcome,
    ToolRefused,
    bind_context,
    bound_context,
    run_tool_call,
    toolset,
)
from chat.tools import (
    MEMORY_READ,
    MEMORY_SAVE,
    RESERVED,
    ReservedToolName,
    ToolName,
    ToolScope,
    check_reserved,
    memory_tools,
    offered_tools,
    run_tool,
    tool_specs,
)
from chat.turn import TurnInput, TurnResult, run_turn

__all__ = [
    "CUSTOMER_ID",
    "DEFAULT_TOOL_SECONDS",
    "MAX_LIST",
    "MEMORY_READ",
    "MEMORY_SAVE",
    "RESERVED",
    "ChatConfig",
    "ChatModelFailed",
    "ChatModelTimeout",
    "ConversationModel",
    "InvalidArguments",
    "NoToolContext",
    "Relay",
    "ReservedToolName",
    "SessionAddress",
    "SessionBusy",
    "SessionKind",
    "SessionNotFound",
    "SessionRow",
    "Tool",
    "ToolContext",
    "ToolName",
    "ToolOutcome",
    "ToolRefused",
    "ToolScope",
    "TurnBinding",
    "TurnInput",
    "TurnRecord",
    "TurnResult",
    "TurnRow",
    "attribute_identities",
    "bind_context",
    "bind_turn",
    "bound_context",
    "check_reserved",
    "check_session_id",
    "claim",
    "delete_session",
    "list_sessions",
    "memory_tools",
    "offered_tools",
    "open_session",
    "record",
    "release",
    "run_tool",
    "run_tool_call",
    "run_turn",
    "select_customer",
    "session_id",
    "session_scope",
    "thread",
    "tool_specs",
    "toolset",
]
