"""Who a text turn is about, and which session address it uses: pure decisions.

The wire hands over one checked identities map (the transport's own identity field folded in
as `customerId`, structured identities from the identities header). Only the agent's fixed
identity key selects a value from it, by its literal name: a `customerId` that looks like a
phone number is never read as `phoneNumber`. Without a value the turn runs without memory tools
and the reason is a code (never the value).

A session's address covers every identity the turn was given, on any wire, so a thread is
never shared between two customers whether or not the configured key is present: the address
is a function of the identities map alone, and a new wire only has to supply the map.
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
Scope = list[str | list[list[str]] | None]


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


def session_scope(key: str | None, identities: Mapping[str, str]) -> Scope:
    """The customer part of a session address.

    Its head is the legacy address (kept byte-identical, so earlier sessions stay reachable):
    the selected value under a bound key, `["missing", key]` when that value is absent, or for
    an agent with no key the scalar `customerId` (or nothing). Every other identity given
    follows as sorted `[name, value]` pairs, so two turns that name different people never
    reach one thread; a turn with no identity at all keeps the bare head, an address space of
    its own."""
    covered: str | None
    if key is None:
        head: Scope = ["unbound", identities.get(CUSTOMER_ID)]
        covered = CUSTOMER_ID
    elif key in identities:
        head, covered = ["bound", key, identities[key]], key
    else:
        head, covered = ["missing", key], None
    others = sorted([name, value] for name, value in identities.items() if name != covered)
    return [*head, others] if others else head


def scope_user(scope: Scope) -> str | None:
    """The customer a session address names in its head (the listing's `userId`)."""
    named = scope[2] if scope[0] == "bound" else scope[1] if scope[0] == "unbound" else None
    return named if isinstance(named, str) else None


def session_customers(identities: Mapping[str, str]) -> list[str]:
    """Every identity value a session was given: what erasing one person's memory matches."""
    return sorted(set(identities.values()))


def session_id(kind: SessionKind, agent_id: str, session_key: str, scope: Scope) -> str:
    """The session's id: derived from the agent, the key and the customer, so the same three
    always reach the same session. It is never returned on the chat wire."""
    material = json.dumps([kind, agent_id, session_key, *scope], ensure_ascii=False)
    return hashlib.sha256(material.encode("utf-8", "surrogatepass")).hexdigest()[:32]
