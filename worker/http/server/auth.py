"""Bearer API keys with scopes, for the HTTP API.

Keys come from `MEMORY_API_KEYS`, a JSON list of `{"name", "key", "scopes", "agents"?}` objects
read once at start-up. `agents`, when present, lists the only agents the key reaches (absent: all
of them); `worker.http.server.context` enforces it, answering another agent as an unknown one.

Only SHA-256 digests of the secrets are kept in memory, and a presented key is
compared with every configured digest in constant time, so neither the secret nor which key
nearly matched leaks through timing. The key's `name` is the actor in the activity log.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Annotated, ClassVar, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    TypeAdapter,
    ValidationError,
    field_validator,
)

from memory.contract import CodedError
from worker.catalog import AGENT_ID_RULE, valid_agent_id

Scope = Literal[
    "config:read",
    "config:write",
    "memory:read",
    "memory:write",
    "memory:delete",
    "voice:rooms",
    "voice:calls",
    "chat",
    "documents:read",
    "documents:write",
    "decisions",
]
SCOPES: tuple[Scope, ...] = (
    "config:read",
    "config:write",
    "memory:read",
    "memory:write",  # adds over HTTP (`POST /api/memory/customers/{agentId}/add`); not read
    "memory:delete",
    "voice:rooms",
    "voice:calls",
    "chat",  # text turns on the chat wire (`POST /v1/chat/completions`)
    "documents:read",
    "documents:write",
    "decisions",  # held tools: list, read and decide pending decisions (`/api/chat/decisions`)
)
# a scope that also grants others: whoever may change configuration may read it
_IMPLIED: dict[Scope, frozenset[Scope]] = {
    "config:write": frozenset({"config:read"}),
    "documents:write": frozenset({"documents:read"}),
}
MIN_SECRET_CHARS = 24
ENV_VAR = "MEMORY_API_KEYS"


class AuthConfigError(ValueError):
    """`MEMORY_API_KEYS` is malformed; the message never contains a secret."""


class AuthFailure(CodedError):
    code: ClassVar[str] = "unauthorized"

    def __init__(self, message: str) -> None:
        super().__init__(message)


class Unauthenticated(AuthFailure):
    """No bearer key, or one that matches no configured key (401)."""

    code = "unauthorized"


class Forbidden(AuthFailure):
    """The key is valid but lacks the scope the route needs (403)."""

    code = "forbidden"


@dataclass(frozen=True, slots=True)
class ApiKey:
    name: str
    digest: bytes
    scopes: frozenset[Scope]
    agents: frozenset[str] | None = None  # None: every agent

    def grants(self, scope: Scope) -> bool:
        return scope in self.scopes or any(scope in _IMPLIED.get(s, ()) for s in self.scopes)

    def reaches(self, agent_id: str) -> bool:
        return self.agents is None or agent_id in self.agents

    @property
    def restricted(self) -> bool:
        return self.agents is not None


def _agent_id(value: str) -> str:
    if not valid_agent_id(value):
        raise ValueError(f"must be an agent id ({AGENT_ID_RULE})")
    return value


class _KeyEntry(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    name: Annotated[str, StringConstraints(min_length=1, max_length=100, pattern=r"^[\w.:@-]+$")]
    key: Annotated[str, StringConstraints(min_length=MIN_SECRET_CHARS, max_length=500)]
    scopes: list[Scope]
    agents: (
        Annotated[list[Annotated[str, AfterValidator(_agent_id)]], Field(min_length=1)] | None
    ) = None

    @field_validator("agents", mode="before")
    @classmethod
    def _given_as_a_list(cls, value: object) -> object:
        if value is None:  # only an absent field means every agent
            raise ValueError("must be a list of agent ids (leave it out to reach every agent)")
        return value


_ENTRIES = TypeAdapter(list[_KeyEntry])


def _digest(secret: str) -> bytes:
    # surrogatepass: a header's undecodable bytes (surrogate escapes) digest to a mismatch (401)
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).digest()


def parse_api_keys(text: str | None) -> tuple[ApiKey, ...]:
    """Parse `MEMORY_API_KEYS`; unset or blank means no keys (every guarded route answers 401)."""
    if text is None or not text.strip():
        return ()
    try:
        entries = _ENTRIES.validate_json(text)
    except ValidationError as exc:
        error = exc.errors(include_url=False, include_input=False)[0]
        where = ".".join(str(p) for p in error["loc"] if p != "key") or "value"
        raise AuthConfigError(f"{ENV_VAR}: {where}: {error['msg']}") from None
    names = [e.name for e in entries]
    if len(set(names)) != len(names):
        raise AuthConfigError(f"{ENV_VAR}: key names must be unique")
    if len({e.key for e in entries}) != len(entries):
        raise AuthConfigError(f"{ENV_VAR}: two entries share the same key")
    return tuple(
        ApiKey(
            e.name,
            _digest(e.key),
            frozenset(e.scopes),
            None if e.agents is None else frozenset(e.agents),
        )
        for e in entries
    )


def bearer_token(header: str | None) -> str | None:
    """The token of an `Authorization: Bearer <token>` header, else None."""
    if header is None:
        return None
    scheme, _, token = header.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


API_KEY_HEADER = "x-api-key"
"""Where Anthropic's clients send the key (accepted on the Anthropic Messages wire only)."""


def authenticate(keys: Sequence[ApiKey], header: str | None, api_key: str | None = None) -> ApiKey:
    """The configured key matching the bearer header, or the `x-api-key` header where a route
    takes it (never both at once); every digest is compared, in constant time."""
    token = bearer_token(header)
    if api_key is not None:
        if header is not None:
            raise Unauthenticated(f"send the API key once: Authorization or {API_KEY_HEADER}")
        token = api_key.strip() or None
    if token is None:
        raise Unauthenticated("a bearer API key is required")
    presented = _digest(token)
    found: ApiKey | None = None
    for key in keys:
        if hmac.compare_digest(presented, key.digest):
            found = key
    if found is None:
        raise Unauthenticated("the API key is not valid")
    return found


def authorize(key: ApiKey, scope: Scope) -> None:
    if not key.grants(scope):
        raise Forbidden(f"this API key lacks the {scope} scope")


def undeclared_agents(keys: Iterable[ApiKey], declared: Iterable[str]) -> dict[str, list[str]]:
    """Key name -> the agents it names that the catalog does not declare (a typo reaches
    nothing), for a start-up warning."""
    known = set(declared)
    return {
        k.name: sorted(k.agents - known) for k in keys if k.agents is not None and k.agents - known
    }


def scopes_of(keys: Iterable[ApiKey]) -> dict[str, tuple[str, ...]]:
    """Key name -> scopes (and `agents:<id>` for each agent a restricted key reaches), for a
    start-up log line that shows no secret."""
    return {
        k.name: tuple(sorted(k.scopes)) + tuple(f"agents:{a}" for a in sorted(k.agents or ()))
        for k in keys
    }
