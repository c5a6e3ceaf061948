"""The extraction settings shared by all agents: guidance draft and publication, model choice.

A saved draft never runs; only published text reaches the extractor, and blank published text
means the built-in guidance. Nothing here can touch the compiled protocol, framing, handles,
validation, limits, scope or erasure rules: the extractor only ever appends guidance as policy.
"""

from __future__ import annotations

import structlog
from aiohttp import web

from memory.config import DEFAULT_MODEL, DEFAULT_REASONING_EFFORT, REASONING_EFFORTS
from memory.extraction import prompt
from memory.settings import DraftBody, ModelBody, parse_draft, parse_model_selection
from memory.store import ExtractionSettings
from memory.store import extraction_settings_store as extraction_store
from worker.http.server import answers
from worker.http.server.context import POOL, Route, actor, respond
from worker.http.server.request_body import read_json

log = structlog.get_logger(__name__)
PATH = "/api/memory/extraction"


def _answer(settings: ExtractionSettings) -> web.Response:
    guidance = answers.Guidance(
        draft=settings.guidance_draft,
        draft_saved_at=settings.draft_saved_at,
        published=settings.guidance_published,
        published_at=settings.published_at,
        uses_built_in=settings.guidance_published is None,
        built_in=prompt("guidance"),
    )
    platform = answers.PlatformDefault(
        model=DEFAULT_MODEL, reasoning_effort=DEFAULT_REASONING_EFFORT
    )
    answer = answers.Extraction(
        model=settings.model,
        reasoning_effort=settings.reasoning_effort,
        platform_default=platform,
        reasoning_efforts=list(REASONING_EFFORTS),
        guidance=guidance,
        updated_at=settings.updated_at,
    )
    return respond(answer.wire())


async def get_extraction(request: web.Request) -> web.Response:
    return _answer(await extraction_store.load_extraction(request.app[POOL]))


async def put_draft(request: web.Request) -> web.Response:
    text = parse_draft(await read_json(request))
    saved = await extraction_store.save_guidance_draft(request.app[POOL], text, actor(request))
    log.info("memory.guidance_draft_saved")
    return _answer(saved)


async def publish(request: web.Request) -> web.Response:
    published = await extraction_store.publish_guidance(request.app[POOL], actor(request))
    log.info("memory.guidance_published", built_in=published.guidance_published is None)
    return _answer(published)


async def reset(request: web.Request) -> web.Response:
    restored = await extraction_store.reset_guidance(request.app[POOL], actor(request))
    log.info("memory.guidance_reset")
    return _answer(restored)


async def put_model(request: web.Request) -> web.Response:
    update = parse_model_selection(await read_json(request))
    saved = await extraction_store.save_model_selection(request.app[POOL], update, actor(request))
    log.info("memory.model_selection_saved", fields=sorted(update.fields))
    return _answer(saved)


_ANSWER = ((200, answers.Extraction),)
ROUTES = (
    Route(
        "GET",
        PATH,
        get_extraction,
        "config:read",
        agents="shared",
        answers=_ANSWER,
        summary="Shared extraction",
    ),
    Route(
        "PUT",
        f"{PATH}/guidance/draft",
        put_draft,
        "config:write",
        agents="shared",
        body=DraftBody,
        answers=_ANSWER,
        summary="Save the guidance draft (it does not run)",
    ),
    Route(
        "POST",
        f"{PATH}/guidance/publish",
        publish,
        "config:write",
        agents="shared",
        answers=_ANSWER,
        summary="Publish the draft",
    ),
    Route(
        "DELETE",
        f"{PATH}/guidance",
        reset,
        "config:write",
        agents="shared",
        answers=_ANSWER,
        summary="Back to the built-in guidance",
    ),
    Route(
        "PUT",
        f"{PATH}/model",
        put_model,
        "config:write",
        agents="shared",
        body=ModelBody,
        answers=_ANSWER,
        summary="Model and reasoning effort (null clears)",
    ),
)
