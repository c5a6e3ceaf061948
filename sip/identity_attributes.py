"""Which identities an inbound SIP caller brings in their participant attributes.

LiveKit's SIP service gives a caller's participant attributes from two places the operator
configures: the inbound trunk's `headers_to_attributes` (a SIP `X-` header of the INVITE, named
as the attribute it becomes) and the dispatch rule's `attributes` (the same for every caller it
accepts). An attribute is an identity only when its name says so: `callmemory.identity.<key>`
names the identity `<key>`, literally (`callmemory.identity.contact.email` is `contact.email`).
So a trunk mapping `X-Customer-Id` to `callmemory.identity.customerId` gives an agent keyed by
`customerId` the caller's CRM id. Nothing else is read: not the `sip.h.*` attributes LiveKit
adds for `include_headers` (whatever headers the caller chose to send), nor any attribute a
browser participant sets on itself (`sip.caller` reads these only for SIP participants).

The phone number stays the SIP service's own `sip.phoneNumber`: `callmemory.identity.phoneNumber`
is ignored. An empty value is no identity; any other value is kept byte-for-byte and checked as
a memory user id when the call resolves its identity (`lifecycle.identity`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

IDENTITY_ATTR_PREFIX: Final = "callmemory.identity."
"""An attribute named this plus a key carries the caller's identity under that key."""
IGNORED_KEYS: Final = frozenset({"phoneNumber"})
"""Keys only telephony names (`sip.phoneNumber`): an attribute never stands in."""


def identity_attribute(key: str) -> str:
    """The attribute that carries the identity `key` (`customerId` -> its attribute name)."""
    return IDENTITY_ATTR_PREFIX + key


def caller_identities(attributes: Mapping[str, str]) -> dict[str, str]:
    """The identity key -> value pairs the attributes name, values unchanged."""
    found: dict[str, str] = {}
    for name, value in attributes.items():
        if not name.startswith(IDENTITY_ATTR_PREFIX) or not value:
            continue
        key = name.removeprefix(IDENTITY_ATTR_PREFIX)
        if key and key not in IGNORED_KEYS:
            found[key] = value
    return found
