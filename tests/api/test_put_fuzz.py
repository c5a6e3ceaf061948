"""Generated settings PUT bodies: each saves exactly what it said, or is a 400 that saves nothing.

The examples share one app and database, so every example starts from whatever the previous
ones left behind; the property is checked against the state read just before each PUT.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tests.api.conftest import auth
from tests.web_clients import Client

URL = "/api/memory/settings/sales"
FIELDS = ("read", "save", "instructions", "identityKey")

json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
values = st.one_of(
    st.booleans(),
    st.text(max_size=40),
    st.integers(min_value=19_998, max_value=20_002).map(lambda n: "é" * n),
    st.sampled_from(["", "\x00", "customerId", "email"]),
    json_scalars,
    st.lists(json_scalars, max_size=2),
)
keys = st.sampled_from([*FIELDS, "Read", "identity_key", "extra"])
good = {
    "read": st.booleans(),
    "save": st.booleans(),
    "instructions": st.text(min_size=1, max_size=60),
    "identityKey": st.just("customerId"),
}
well_typed = st.fixed_dictionaries({}, optional=good)
mixed = st.fixed_dictionaries({}, optional={name: good[name] | values for name in good})
junk = st.one_of(
    st.dictionaries(keys, values, max_size=5), json_scalars, st.lists(values, max_size=2)
)
# about half the bodies are well typed, so saves are exercised as often as rejections
bodies = st.sampled_from([well_typed, mixed, junk]).flatmap(lambda strategy: strategy)


def _valid_value(name: str, value: object) -> bool:
    if name in ("read", "save"):
        return isinstance(value, bool)
    if name == "instructions":
        return isinstance(value, str) and 1 <= len(value) <= 20_000 and "\x00" not in value
    if name == "identityKey":
        return isinstance(value, str) and 1 <= len(value) <= 100 and "\x00" not in value
    return False


def expected_ok(body: object, bound_key: str | None) -> bool:
    """The oracle: a plain restatement of the contract, independent of the implementation."""
    if not isinstance(body, dict):
        return False
    if not all(_valid_value(name, value) for name, value in body.items()):
        return False
    key = body.get("identityKey")
    return key is None or bound_key is None or key == bound_key


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(body=bodies)
async def test_put_saves_exactly_what_it_said_or_changes_nothing(client: Client, body: Any) -> None:
    before = await (await client.get(URL, headers=auth())).json()
    # as JSON text: aiohttp's `json=None` would send no body and no Content-Type (a 415)
    typed = auth() | {"Content-Type": "application/json"}
    response = await client.put(URL, data=json.dumps(body), headers=typed)
    after = await (await client.get(URL, headers=auth())).json()
    bound = before["binding"]["identityKey"] if before["binding"] else None
    event(f"status {response.status}")
    if not expected_ok(body, bound):
        assert response.status in (400, 409), (response.status, body)
        assert after == before
        return
    assert response.status == 200, await response.text()
    assert await response.json() == after
    expected_overrides = dict(before["overrides"])
    expected_overrides.update({k: v for k, v in body.items() if k != "identityKey"})
    assert after["overrides"] == expected_overrides
    for name in ("read", "save", "instructions"):
        if name in body:
            assert after["value"][name] == body[name]
            assert after["origins"][name] == "studio"
    if "identityKey" in body:
        assert after["binding"]["identityKey"] == body["identityKey"]
