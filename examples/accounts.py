"""The agent of the phone examples in docs/deployment.md: `accounts`, keyed by the CRM's id.

The bundled worker serves it with `AGENTS=examples.accounts:agents`. An inbound caller is named
by the trunk's `X-Customer-Id` header (`examples/sip/inbound-trunk.json`), a callee by the
`identities` of `POST /api/voice/calls` (`examples/sip/outbound-call.json`).
"""

from callmemory import CodeDefaults, define_agent

accounts = define_agent(
    name="accounts",
    instructions="You answer the phone for the accounts team. Keep answers short.",
    memory=CodeDefaults(read=True, save=True, identity_key="customerId"),
)
agents = [accounts]
