"""Who a text turn is about, and which session address it uses: pure decisions.

The wire hands over one checked identities map (the transport's own identity field folded in
as `customerId`, structured identities from the identities header). Only the agent's fixed
identity key selects a value from it, by its literal name: a `customerId` that looks like a
phone number is never read as `phoneNumber`. Without a value the turn runs without memory tools
and the reason is a code (never the value).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Literal

from lifecycle.identity import Identity, NoIdentity
from memory.contract import InvalidRequest, requests

CUSTOMER_ID = "customerId"
SessionKind = Literal["session", "conversation"]


def select_customer(key: str | None, identities: Mapping[str, str]) -> Identity:
    """The memory user id under the agent's identity key, or why there is none."""
    if key is None:
        return Identity(user_id=None, reason=NoIdentity.NO_BINDING)
    value = identities.get(key)
    if value is None:
        return Identity(user_id=None, reason=NoIdentity.IDENTITY_MISSING)
    try:
        requests.user_id(value)
    except InvalidRequest:
        return Identity(user_id=None, reason=NoIdentity.IDENTITY_INVALID)
    return Identity(user_id=value, source="metadata")


def session_scope(key: str | None, identities: Mapping[str, str]) -> list[str | None]:
    """The customer part of a session address: the selected value under a bound key (a
    missing value has an address of its own), or for an agent with no key, the scalar
    `customerId` (or nothing)."""
    if key is None:
        return ["unbound", identities.get(CUSTOMER_ID)]
    value = identities.get(key)
    return ["missing", key] if value is None else ["bound", key, value]


def session_id(kind: SessionKind, agent_id: str, session_key: str, scope: list[str | None]) -> str:
    """The session's id: derived from the agent, the key and the customer, so the same three
    always reach the same session. It is never returned on the chat wire."""
    material = json.dumps([kind, agent_id, session_key, *scope], ensure_ascii=False)
    return hashlib.sha256(material.encode("utf-8", "surrogatepass")).hexdigest()[:32]
