"""An agent's conversation instruction (prompt): the draft, the published text, the code's."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, Self

from worker.http.server.answers.base import Answer, Timestamp

if TYPE_CHECKING:
    from memory.store._prompts import StoredPrompt


class AgentPrompt(Answer):
    agent_id: str
    draft: str | None  # runs only in the Playground until published
    draft_saved_at: Timestamp | None
    published: str | None  # what new calls and text turns run (None: the code's)
    published_at: Timestamp | None
    published_by: str | None  # the API key's name that published it
    runs: Literal["published", "code"]
    code: str | None  # the agent's instructions in code (None: this process cannot load it)

    @classmethod
    def of(cls, agent_id: str, stored: StoredPrompt, code: str | None) -> Self:
        return cls(
            agent_id=agent_id,
            draft=stored.draft,
            draft_saved_at=stored.draft_saved_at,
            published=stored.published,
            published_at=stored.published_at,
            published_by=stored.published_by,
            runs="code" if stored.published is None else "published",
            code=code,
        )
