"""An agent's conversation instruction (its prompt) as an operator writes it: the draft body,
what publishing stores, and which text a call or turn runs.

The code's `instructions` (the agent's definition) are the default and the origin: a published
text replaces them for every new call and text turn; a draft runs only where a person tries it
(the Playground). Blank text published means the code's instructions again.
"""

from __future__ import annotations

from typing import Annotated, Final, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, StringConstraints, ValidationError

from memory.settings._agent_settings import _check_text
from memory.settings._bodies import _invalid

MAX_PROMPT_CHARS: Final = 100_000
"""As long as an agent's instructions may be in code (`callmemory.define_agent`)."""

PromptText = Annotated[
    str, StringConstraints(max_length=MAX_PROMPT_CHARS), AfterValidator(_check_text)
]
PromptOrigin = Literal["published", "draft", "code"]


class PromptDraftBody(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    text: PromptText


def parse_prompt_draft(body: object) -> str:
    """A prompt draft: any text up to 100,000 characters, blank included (it publishes as
    the code's instructions)."""
    try:
        return PromptDraftBody.model_validate(body).text
    except ValidationError as exc:
        raise _invalid(exc) from None


def published_prompt(draft: str | None) -> str | None:
    """What publishing a draft stores: blank or missing text means the code's instructions."""
    if draft is None or not draft.strip():
        return None
    return draft


def running_prompt(code: str, published: str | None) -> tuple[str, PromptOrigin]:
    """The text a call or turn runs and where it came from: published, else the code's."""
    if published is not None:
        return published, "published"
    return code, "code"
