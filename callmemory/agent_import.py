"""`AGENTS=module:attr`: where a process finds the agent definitions it serves.

The path is written as uvicorn and Celery write theirs: a module importable by the process, a
colon, and an attribute of it that is one `AgentDefinition` or a list (or tuple) of them. The
project's own module is the default (`worker.catalog:agents`). Every problem is one
`AgentsImportFailed` naming the variable and the cause, never a traceback; a module that raises
while it is imported is reported by the exception's class (its message may hold anything).
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterable
from typing import Final

from callmemory.definition import AgentDefinition, DefinitionError
from memory.config import ConfigError

VARIABLE: Final = "AGENTS"
DEFAULT_AGENTS: Final = "worker.catalog:agents"
_PATH = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_][\w.]*")


class AgentsImportFailed(ConfigError):
    """`AGENTS` names no loadable definitions; the message names the path and the cause."""


def parse_path(path: str) -> tuple[str, str]:
    """`module:attr` split in two; `AgentsImportFailed` for any other shape."""
    if _PATH.fullmatch(path.strip()) is None:
        raise AgentsImportFailed(
            f"{VARIABLE}={path}: must be module:attribute (for example myapp.agents:agents)"
        )
    module, attr = path.strip().split(":", 1)
    return module, attr


def load_agents(path: str = DEFAULT_AGENTS) -> tuple[AgentDefinition, ...]:
    """The definitions `path` names, checked; two of one name are refused."""
    module_name, attr = parse_path(path)
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        raise AgentsImportFailed(f"{VARIABLE}={path}: no module named {exc.name!r}") from None
    except DefinitionError as exc:
        raise AgentsImportFailed(f"{VARIABLE}={path}: {exc}") from None
    except Exception as exc:  # the team's module failed while importing: name the class only
        raise AgentsImportFailed(
            f"{VARIABLE}={path}: importing {module_name} raised {type(exc).__name__}"
        ) from None
    value: object = module
    for part in attr.split("."):
        if not hasattr(value, part):
            raise AgentsImportFailed(f"{VARIABLE}={path}: {module_name} has no attribute {attr}")
        value = getattr(value, part)
    return _definitions(path, value)


def _definitions(path: str, value: object) -> tuple[AgentDefinition, ...]:
    found: Iterable[object] = (value,) if isinstance(value, AgentDefinition) else ()
    if isinstance(value, list | tuple):
        found = value
    elif not isinstance(value, AgentDefinition):
        raise AgentsImportFailed(
            f"{VARIABLE}={path}: must name an agent definition or a list of them"
        )
    agents: list[AgentDefinition] = []
    for item in found:
        if not isinstance(item, AgentDefinition):
            raise AgentsImportFailed(f"{VARIABLE}={path}: every item must be an agent definition")
        if any(a.name == item.name for a in agents):
            raise AgentsImportFailed(f"{VARIABLE}={path}: agent {item.name!r} is declared twice")
        agents.append(item)
    if not agents:
        raise AgentsImportFailed(f"{VARIABLE}={path}: names no agent")
    return tuple(agents)
