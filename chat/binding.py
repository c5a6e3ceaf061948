"""Which memory tools one text turn offers, and for whom: a pure decision from the agent's
settings read for that turn and the turn's identities map.

The memory tools follow the settings table (read, save, both, none); without a customer under
the agent's fixed identity key the turn gets none, and the reason is a code, never a value.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from chat.customer import select_customer
from chat.identities import IdentitiesRule, InvalidIdentities, check_identities
from chat.memory_tools import ToolScope, offered_tools
from memory.settings import CallSettings

SETTINGS_UNAVAILABLE = "settings_unavailable"


@dataclass(frozen=True, slots=True)
class TurnBinding:
    """The turn's tools bound to the agent and the customer, or why it has none.

    `reason` None with no scope: memory is off for the agent (read and save both off).
    """

    scope: ToolScope | None
    reason: str | None = None


def attribute_identities(attributes: Mapping[str, str]) -> dict[str, str] | IdentitiesRule:
    """A participant's attributes as an identities map, or the rule they break."""
    try:
        return check_identities(dict(attributes))
    except InvalidIdentities as problem:
        return problem.rule


def bind_turn(
    agent_id: str,
    settings: CallSettings | None,
    identities: Mapping[str, str] | IdentitiesRule,
) -> TurnBinding:
    """The memory tools of one turn: `settings` None when they could not be read."""
    if settings is None:
        return TurnBinding(None, SETTINGS_UNAVAILABLE)
    if not (settings.read or settings.save):
        return TurnBinding(None)
    if isinstance(identities, IdentitiesRule):
        return TurnBinding(None, identities.value)
    key = None if settings.binding is None else settings.binding.identity_key
    found = select_customer(key, identities)
    if found.user_id is None:
        return TurnBinding(None, None if found.reason is None else found.reason.value)
    offered = offered_tools(settings.read, settings.save, customer_known=True)
    return TurnBinding(ToolScope(agent_id, found.user_id, settings, offered))
