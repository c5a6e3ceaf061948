"""The OpenAPI 3.1 document of every route, built from the route table at start-up.

Request bodies come from the pydantic models the routes validate with (`Route.body`); answers
from `worker.http.server.answers` (`Route.answers`), and every error from `ErrorAnswer` as the
`default` response (a JSON route also lists its 415 for another `Content-Type`, and a route
its own refusals, `Route.refusals`, a 429 with its `Retry-After`). Pydantic's
JSON Schema is draft 2020-12, which OpenAPI 3.1 uses as is. The static pages are listed too,
with their media types. `/api/openapi.json` serves the document.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, Final

from aiohttp import web
from pydantic import BaseModel
from pydantic.json_schema import JsonSchemaMode, models_json_schema

from worker.http.server.answers import ErrorAnswer
from worker.http.server.context import Route, respond

PATH: Final = "/api/openapi.json"
DOCUMENT: web.AppKey[dict[str, Any]] = web.AppKey("openapi_document")
REF: Final = "#/components/schemas/{model}"
_PARAMETER = re.compile(r"{(\w+)}")
_PAGE_TYPES: Final = {".js": "application/javascript", ".css": "text/css"}
_WAIT_STATUSES: Final = frozenset({429, 503})  # a refusal that says when to try again
_RETRY_AFTER: Final = {
    "Retry-After": {"description": "seconds to wait before retrying", "schema": {"type": "string"}}
}


def _ref(model: type[BaseModel]) -> dict[str, str]:
    return {"$ref": REF.format(model=model.__name__)}


def _schemas(routes: Iterable[Route]) -> dict[str, Any]:
    pairs: dict[type[BaseModel], JsonSchemaMode] = {ErrorAnswer: "serialization"}
    for route in routes:
        if route.body is not None:
            pairs[route.body] = "validation"
        if route.errors is not None:
            pairs[route.errors] = "serialization"
        for _, model in route.answers:
            pairs[model] = "serialization"
    _, top = models_json_schema(list(pairs.items()), ref_template=REF)
    defs: dict[str, Any] = top.get("$defs", {})
    return defs


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _parameters(route: Route) -> list[dict[str, Any]]:
    path = [
        {"name": name, "in": "path", "required": True, "schema": {"type": "string"}}
        for name in _PARAMETER.findall(route.path)
    ]
    query = [
        {"name": name, "in": "query", "required": False, "schema": {"type": "string"}}
        for name in route.query
    ]
    string = {"type": "string"}
    headers = [
        {"name": name, "in": "header", "required": False, "description": what, "schema": string}
        for name, what in route.headers
    ]
    return path + query + headers


def _operation(route: Route) -> dict[str, Any]:
    responses = {str(status): _json(_ref(model), "success") for status, model in route.answers}
    for response in responses.values():
        if route.answer_headers:
            response["headers"] = {
                name: {"description": what, "schema": {"type": "string"}}
                for name, what in route.answer_headers
            }
    if not route.answers:  # only the document itself: any JSON object
        responses["200"] = _json({"type": "object"}, "success")
    errors = _ref(route.errors or ErrorAnswer)
    responses["default"] = _json(errors, "an error; the status follows from its code")
    for status, when in route.refusals:
        responses[str(status)] = _json(errors, when)
        if status in _WAIT_STATUSES:
            responses[str(status)]["headers"] = _RETRY_AFTER
    operation: dict[str, Any] = {"summary": route.summary, "responses": responses}
    if route.description:
        operation["description"] = route.description
    if parameters := _parameters(route):
        operation["parameters"] = parameters
    if route.body is not None:
        operation["requestBody"] = {
            "required": True,
            "content": {"application/json": {"schema": _ref(route.body)}},
        }
        responses["415"] = _json(errors, "Content-Type is not application/json (or is missing)")
    binary = {"schema": {"type": "string", "format": "binary"}}
    if route.upload:
        operation["requestBody"] = {
            "required": True,
            "content": {media: binary for media in route.upload},
        }
    if route.download:
        content = {media: binary for media in route.download}
        responses["200"] = {"description": "the bytes", "content": content}
        for _, model in route.answers:  # a stream: the JSON each of its events carries
            responses["200"]["x-event-data"] = _ref(model)
    operation["x-family"] = route.family  # whose error codes it answers with
    if route.scope != "public":
        operation["security"] = [{"bearer": []}]
        operation["x-scope"] = route.scope
        operation["x-agents"] = route.agents  # what a key restricted to some agents meets
    return operation


def _page(route: Route) -> dict[str, Any]:
    """A static file, or the redirect from a page's bare path to its folder."""
    suffix = route.path[route.path.rfind(".") :] if "." in route.path else ""
    if route.path.endswith("/") or suffix:
        media = _PAGE_TYPES.get(suffix, "text/html")
        ok = {"description": "the file", "content": {media: {"schema": {"type": "string"}}}}
        return {"summary": "a page file (no key)", "responses": {"200": ok}}
    return {"summary": "redirect to the page", "responses": {"302": {"description": "Location"}}}


def document(routes: Iterable[Route], pages: Iterable[Route]) -> dict[str, Any]:
    """The whole document for `routes` (the API, JSON) and `pages` (static files)."""
    api = tuple(routes)
    paths: dict[str, dict[str, Any]] = {}
    for route in api:
        paths.setdefault(route.path, {})[route.method.lower()] = _operation(route)
    for page in pages:
        paths.setdefault(page.path, {})[page.method.lower()] = _page(page)
    return {
        "openapi": "3.1.0",
        "info": {"title": "caller-memory", "version": "1"},
        "paths": paths,
        "components": {
            "schemas": _schemas(api),
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
    }


async def serve(request: web.Request) -> web.Response:
    body = request.app[DOCUMENT]
    return respond(body)


ROUTE: Final = Route("GET", PATH, serve, "public", summary="This document")
