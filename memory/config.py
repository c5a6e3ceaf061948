"""Memory configuration and the resolution of the extraction model and reasoning effort.

Model: stored selection, then the client option, then `STACKBONE_MEMORY_MODEL`, then the
platform default. Reasoning effort: stored selection, then client option, then
`STACKBONE_MEMORY_REASONING_EFFORT`, then `high`.

Model names: every model this service names to a provider (extraction, embeddings, the text
turns' and the voice conversation models) goes through `provider_model`, the one rule of
`provider/model` names (docs/configuration.md#model-names).
"""

from __future__ import annotations

from dataclasses import dataclass

from infra.database import DEFAULT_COMMAND_SECONDS

DEFAULT_MODEL = "openai/gpt-5.6-luna"
DEFAULT_REASONING_EFFORT = "high"
REASONING_EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh")
DIRECT_PROVIDER_PREFIX = "openai/"
"""The one provider prefix understood: the OpenAI-compatible endpoint configured (base URL)."""
DEFAULT_EMBEDDING_MODEL = "openai/text-embedding-3-small"
DEFAULT_TIMEOUT_SECONDS = 30.0
DEFAULT_EMBEDDING_TIMEOUT_SECONDS = 10.0
DEFAULT_PARSE_TIMEOUT_SECONDS = 10.0


def provider_model(name: str) -> str:
    """The model id sent to the provider for a configured model name.

    `openai/<model>` names a model of the configured OpenAI-compatible endpoint: the prefix is
    removed and `<model>` is sent. Any other name, with or without a slash (`gpt-4.1-mini`,
    `acme/llama-3`), is sent exactly as written, for gateways that route by their own prefixes.
    """
    return name.removeprefix(DIRECT_PROVIDER_PREFIX)


class ConfigError(ValueError):
    """A configuration value is invalid; the message names the variable or option."""


def check_effort(value: str | None, name: str) -> str | None:
    if value is not None and value not in REASONING_EFFORTS:
        raise ConfigError(f"{name} must be one of {', '.join(REASONING_EFFORTS)}")
    return value


@dataclass(frozen=True, slots=True)
class MemoryConfig:
    """Provider connection and the client/env fallbacks for model selection."""

    base_url: str | None = None
    api_key: str | None = None
    model: str | None = None
    reasoning_effort: str | None = None
    env_model: str | None = None
    env_reasoning_effort: str | None = None
    timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS
    structured_output: bool = True
    # semantic search and documents: None = lexical search only, no documents (the process
    # environment's default is `DEFAULT_EMBEDDING_MODEL`: `callmemory.environment`)
    embedding_model: str | None = None
    embedding_timeout_seconds: float = DEFAULT_EMBEDDING_TIMEOUT_SECONDS
    # the bound of each public call's database work: the pool's command timeout
    database_timeout_seconds: float = DEFAULT_COMMAND_SECONDS
    # the bound of reading and chunking one uploaded document (`rag_parse_timeout` past it)
    parse_timeout_seconds: float = DEFAULT_PARSE_TIMEOUT_SECONDS

    @property
    def search_timeout_seconds(self) -> float:
        """A search's bound: the database's, plus the query's embedding when there is a model."""
        embedding = self.embedding_timeout_seconds if self.embedding_model else 0.0
        return self.database_timeout_seconds + embedding

    def __post_init__(self) -> None:
        check_effort(self.reasoning_effort, "memory reasoning_effort option")
        check_effort(self.env_reasoning_effort, "STACKBONE_MEMORY_REASONING_EFFORT")
        if not self.timeout_seconds > 0:
            raise ConfigError("STACKBONE_MEMORY_TIMEOUT_SECONDS must be a positive number")
        if not self.embedding_timeout_seconds > 0:
            raise ConfigError(
                "STACKBONE_MEMORY_EMBEDDING_TIMEOUT_SECONDS must be a positive number"
            )
        if not self.parse_timeout_seconds > 0:
            raise ConfigError("DOCUMENTS_PARSE_TIMEOUT_SECONDS must be a positive number")
        if not self.database_timeout_seconds > 0:
            raise ConfigError("DATABASE_COMMAND_TIMEOUT_SECONDS must be a positive number")


@dataclass(frozen=True, slots=True)
class ModelChoice:
    model: str
    reasoning_effort: str

    @property
    def provider_model(self) -> str:
        """The id sent to the provider (`provider_model`)."""
        return provider_model(self.model)


def resolve_choice(
    config: MemoryConfig, stored_model: str | None, stored_effort: str | None
) -> ModelChoice:
    model = stored_model or config.model or config.env_model or DEFAULT_MODEL
    effort = (
        (stored_effort if stored_effort in REASONING_EFFORTS else None)
        or config.reasoning_effort
        or config.env_reasoning_effort
        or DEFAULT_REASONING_EFFORT
    )
    return ModelChoice(model=model, reasoning_effort=effort)
