"""What every answer model shares: the base that writes an answer's JSON, and its field types.

An answer is one pydantic model: the route builds it from the domain's values, `wire()` gives the
JSON object it answers (and the CLI prints), and the OpenAPI document describes it from the same
class. Field names are Python's; the wire names are camelCase, by the alias generator.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    GetCoreSchemaHandler,
    PlainSerializer,
    WithJsonSchema,
)
from pydantic.alias_generators import to_camel
from pydantic_core import core_schema


def _iso(value: datetime) -> str:
    return value.isoformat()


Timestamp = Annotated[
    datetime, PlainSerializer(_iso, return_type=str), WithJsonSchema({"type": "string"})
]
"""A datetime, written as ISO 8601 with its UTC offset (`datetime.isoformat`)."""

Number = Annotated[int | float, WithJsonSchema({"type": "number"})]
"""A JSON number, written as the value came (an int stays `83`, a float `83.0`)."""


class Answer(BaseModel):
    """Extra fields are refused, so an answer cannot carry a field the document does not name;
    a field with a default is written only when given (an optional member)."""

    model_config = ConfigDict(extra="forbid", alias_generator=to_camel, populate_by_name=True)

    def wire(self) -> dict[str, Any]:
        """The JSON object of this answer: wire names, in field order, defaults left unset out."""
        return self.model_dump(mode="json", by_alias=True, exclude_unset=True)


class WireAnswer(Answer):
    """An answer in another wire's own names (an event's snake_case, OpenAI's, Anthropic's)."""

    model_config = ConfigDict(alias_generator=None)


class Stored:
    """`Annotated[dict[str, Any], Stored(Model)]`: a JSON object read back from the database,
    documented as `Model` and written as it was read (jsonb keeps its keys in its own order,
    which the answer keeps; a row an older version wrote is shown as it is)."""

    def __init__(self, model: type[BaseModel]) -> None:
        self.model = model

    def __get_pydantic_core_schema__(
        self, source: object, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        return core_schema.no_info_wrap_validator_function(
            _checked,
            handler.generate_schema(self.model),
            serialization=core_schema.plain_serializer_function_ser_schema(_as_read),
        )


def _checked(value: object, model: core_schema.ValidatorFunctionWrapHandler) -> object:
    """Documented as the model, never refused: a row an older version wrote (a field it did
    not have yet) must still be readable."""
    return value


def _as_read(value: object) -> object:
    return value
