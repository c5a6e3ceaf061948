"""What LiveKit's SIP service makes of an inbound call, for the phone examples of
docs/deployment.md (`examples/sip/`).

The trunk and the dispatch rule are read the way `lk sip inbound create` and `lk sip dispatch
create` read them: protobuf JSON into livekit-api's own request messages, so a field LiveKit
does not know fails here. The SIP service itself (Go, not installed; `livekit/sip`) then gives
the caller's participant its `sip.*` attributes, copies each INVITE header the trunk's
`headers_to_attributes` names (header names compare case-insensitively, as SIP's do) into the
attribute it names, adds the rule's `attributes`, and dispatches the rule's agents with their
metadata.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from google.protobuf import json_format
from livekit import api

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "sip"
INBOUND_TRUNK = EXAMPLES / "inbound-trunk.json"
DISPATCH_RULE = EXAMPLES / "dispatch-rule.json"
OUTBOUND_CALL = EXAMPLES / "outbound-call.json"
TRUNK_ID = "ST_accounts"
RULE_ID = "SDR_accounts"


@dataclass(frozen=True)
class InboundCall:
    """The caller's participant attributes and the dispatch the SIP service makes."""

    attributes: dict[str, str]
    agent_name: str
    metadata: str


def inbound_trunk() -> api.SIPInboundTrunkInfo:
    request = json_format.Parse(INBOUND_TRUNK.read_text(), api.CreateSIPInboundTrunkRequest())
    return request.trunk


def dispatch_rule() -> api.SIPDispatchRuleInfo:
    request = json_format.Parse(DISPATCH_RULE.read_text(), api.CreateSIPDispatchRuleRequest())
    return request.dispatch_rule


def inbound_call(caller: str, headers: Mapping[str, str]) -> InboundCall:
    """An INVITE from `caller` with these headers to the example trunk's first number."""
    trunk, rule = inbound_trunk(), dispatch_rule()
    attributes = {
        "sip.phoneNumber": caller,
        "sip.trunkPhoneNumber": trunk.numbers[0],
        "sip.trunkID": TRUNK_ID,
        "sip.ruleID": RULE_ID,
        "sip.callStatus": "active",
    }
    sent = {name.lower(): value for name, value in headers.items()}
    for header, attribute in trunk.headers_to_attributes.items():
        if header.lower() in sent:
            attributes[attribute] = sent[header.lower()]
    attributes.update(rule.attributes)
    [agent] = rule.room_config.agents
    return InboundCall(attributes, agent.agent_name, agent.metadata)
