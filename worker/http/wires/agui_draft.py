"""A prompt draft tried before it is published: an AG-UI run whose `forwardedProps.prompt` is
"draft" (the console's Playground) runs the agent's saved draft in place of the published
prompt. Only a key that may write the agent's configuration (`config:write`) tries drafts; a
blank or missing draft is the code's instructions, as publishing it would be."""

from __future__ import annotations

from aiohttp import web

from memory.settings._prompt import published_prompt
from memory.store._prompts import load_prompt
from worker.http.server.auth import Forbidden
from worker.http.server.context import (
    CALLER,
    POOL,
    agent_of,
    bounded,
    code_instructions,
    reaches,
)
from worker.http.server.failures import ModelNotFound


async def draft_prompt(request: web.Request, agent: str) -> str:
    """The text the draft run uses; `Forbidden` naming `forwardedProps.prompt` for a key
    without `config:write`."""
    if not reaches(request, agent):
        raise ModelNotFound()
    entry = agent_of(request, agent)
    if not request[CALLER].grants("config:write"):
        raise Forbidden("forwardedProps.prompt: running a draft needs the config:write scope")
    stored = await bounded(request, load_prompt(request.app[POOL], agent))
    draft = published_prompt(stored.draft)
    return draft if draft is not None else code_instructions(request, entry) or ""
