"""`define_agent` checks a definition when it is written, and `AGENTS` loads definitions or
says in one line why not; every limit at the limit and one past it."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from livekit.agents import function_tool

from callmemory import CodeDefaults, DefinitionError, define_agent
from callmemory.agent_import import AgentsImportFailed, load_agents
from callmemory.definition import MAX_INSTRUCTIONS_CHARS, MAX_TOOL_SECONDS


@function_tool
async def lookup_order(order_id: str) -> str:
    """Look up an order.

    Args:
        order_id: the order number
    """
    return order_id


@function_tool(name="memory_read")
async def sneaky() -> str:
    """Pretends to read memory."""
    return ""


@function_tool(name="search_docs")
async def own_search(query: str) -> str:
    """Searches something else."""
    return query


def test_a_definition_keeps_what_it_was_given() -> None:
    agent = define_agent(
        name="front-desk",
        instructions="Help.",
        memory=CodeDefaults(read=True),
        tools=[lookup_order],
        collections=["help-center"],
        model="gpt-test",
    )
    assert agent.tool_names == ("lookup_order",)
    assert (agent.collections, agent.model) == (("help-center",), "gpt-test")


@pytest.mark.parametrize(
    ("kwargs", "rule"),
    [
        ({"name": "bad name"}, "name: must match"),
        ({"name": "x" * 201}, "at most 200 characters"),
        ({"instructions": "  "}, "instructions: must be non-empty"),
        ({"instructions": "x" * (MAX_INSTRUCTIONS_CHARS + 1)}, "instructions: at most"),
        ({"tools": [lookup_order, lookup_order]}, "two tools have the same name"),
        ({"tools": [lambda: None]}, "livekit @function_tool"),
        ({"tools": [sneaky], "memory": CodeDefaults(read=True)}, "memory_read is reserved"),
        ({"tools": [own_search], "collections": ["help"]}, "search_docs is reserved"),
        ({"collections": ["Help Center"]}, "collections: each must match"),
        ({"tool_seconds": 0}, "tool_seconds"),
        ({"tool_seconds": MAX_TOOL_SECONDS + 0.1}, "tool_seconds"),
        ({"model": " "}, "model: must be non-empty"),
    ],
)
def test_a_broken_rule_names_its_field(kwargs: dict[str, object], rule: str) -> None:
    given: dict[str, object] = {"name": "desk", "instructions": "Help."} | kwargs
    with pytest.raises(DefinitionError, match=rule):
        define_agent(**given)  # type: ignore[arg-type]


def test_the_limits_themselves_are_accepted() -> None:
    define_agent(name="x" * 200, instructions="x" * MAX_INSTRUCTIONS_CHARS)
    define_agent(name="d", instructions="Help.", tool_seconds=MAX_TOOL_SECONDS)
    define_agent(name="d", instructions="Help.", tools=[sneaky])  # memory off: the name is free
    define_agent(name="d", instructions="Help.", tools=[own_search])  # no collections


@pytest.fixture(name="team")
def _team(tmp_path: Path) -> Iterator[Path]:
    sys.path.insert(0, str(tmp_path))
    yield tmp_path
    sys.path.remove(str(tmp_path))
    for name in [m for m in sys.modules if m.startswith("team_")]:
        del sys.modules[name]


MODULES = {
    "team_ok": "from callmemory import define_agent\n"
    "a = define_agent(name='a', instructions='x')\nb = define_agent(name='b', instructions='y')\n"
    "agents = [a, b]\none = a\ntwice = [a, a]\nnone = []\nwrong = ['a']\n",
    "team_raises": "raise RuntimeError('secret in a message')\n",
    "team_bad_definition": "from callmemory import define_agent\n"
    "agents = [define_agent(name='bad name', instructions='x')]\n",
}


@pytest.mark.parametrize(
    ("path", "said"),
    [
        ("team_ok", "must be module:attribute"),
        ("team_missing:agents", "no module named 'team_missing'"),
        ("team_ok:nothing", "team_ok has no attribute nothing"),
        ("team_ok:twice", "agent 'a' is declared twice"),
        ("team_ok:none", "names no agent"),
        ("team_ok:wrong", "every item must be an agent definition"),
        ("team_raises:agents", "importing team_raises raised RuntimeError"),
        ("team_bad_definition:agents", "name: must match"),
    ],
)
def test_agents_that_cannot_load_say_why_in_one_line(team: Path, path: str, said: str) -> None:
    for name, source in MODULES.items():
        (team / f"{name}.py").write_text(source)
    with pytest.raises(AgentsImportFailed) as failed:
        load_agents(path)
    message = str(failed.value)
    assert message.startswith(f"AGENTS={path}") and said in message
    assert "\n" not in message and "secret" not in message


def test_agents_loads_a_list_or_one_definition(team: Path) -> None:
    (team / "team_ok.py").write_text(MODULES["team_ok"])
    assert [a.name for a in load_agents("team_ok:agents")] == ["a", "b"]
    assert [a.name for a in load_agents("team_ok:one")] == ["a"]
    assert [a.name for a in load_agents()] == ["support"]  # the project's own module
