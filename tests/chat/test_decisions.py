"""The pure decisions of a text turn: which tools, who the customer is, which session."""

from __future__ import annotations

import pytest

from chat import (
    ReservedToolName,
    check_reserved,
    offered_tools,
    select_customer,
    session_id,
    session_scope,
    tool_specs,
)
from lifecycle.identity import NoIdentity


@pytest.mark.parametrize(
    ("read", "save", "tools"),
    [
        (False, False, ()),
        (True, False, ("memory_read",)),
        (False, True, ("memory_save",)),
        (True, True, ("memory_read", "memory_save")),
    ],
)
def test_the_four_row_tool_table(read: bool, save: bool, tools: tuple[str, ...]) -> None:
    assert offered_tools(read, save, customer_known=True) == tools


def test_no_customer_means_no_tools_whatever_the_settings() -> None:
    assert offered_tools(True, True, customer_known=False) == ()


def test_tool_specs_bind_no_scope_arguments() -> None:
    read, save = tool_specs(("memory_read", "memory_save"))
    assert read["function"]["parameters"]["properties"] == {}
    assert list(save["function"]["parameters"]["properties"]) == ["content"]


def test_reserved_names_refused_only_while_memory_is_enabled() -> None:
    check_reserved(["memory_read"], memory_enabled=False)
    check_reserved(["lookup_order"], memory_enabled=True)
    with pytest.raises(ReservedToolName, match="memory_save"):
        check_reserved(["lookup_order", "memory_save"], memory_enabled=True)


def test_only_the_fixed_key_selects_the_customer() -> None:
    ids = {"customerId": "crm/42", "email": "a@example.com"}
    assert select_customer("email", ids).user_id == "a@example.com"
    assert select_customer("customerId", ids).user_id == "crm/42"
    assert select_customer(None, ids).reason is NoIdentity.NO_BINDING
    assert select_customer("contact.email", ids).reason is NoIdentity.IDENTITY_MISSING


def test_a_phone_shaped_customer_id_never_supplies_the_phone_number() -> None:
    found = select_customer("phoneNumber", {"customerId": "+14155550100"})
    assert found.user_id is None
    assert found.reason is NoIdentity.IDENTITY_MISSING


def test_values_are_kept_byte_for_byte() -> None:
    assert select_customer("customerId", {"customerId": " Zoë\t"}).user_id == " Zoë\t"


def test_session_addresses_separate_customers_agents_and_kinds() -> None:
    one = session_id("session", "support", "k", session_scope("customerId", {"customerId": "a"}))
    assert one == session_id(
        "session", "support", "k", session_scope("customerId", {"customerId": "a"})
    )
    others = {
        session_id("session", "support", "k", session_scope("customerId", {"customerId": "b"})),
        session_id("session", "support", "k", session_scope("customerId", {})),
        session_id("session", "sales", "k", session_scope("customerId", {"customerId": "a"})),
        session_id(
            "conversation", "support", "k", session_scope("customerId", {"customerId": "a"})
        ),
        session_id("session", "support", "k2", session_scope("customerId", {"customerId": "a"})),
    }
    assert one not in others and len(others) == 5


def test_an_unbound_agent_addresses_by_the_scalar_customer_id() -> None:
    assert session_scope(None, {"customerId": "c"}) == ["unbound", "c"]
    assert session_scope(None, {}) == ["unbound", None]
