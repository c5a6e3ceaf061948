"""The Memory screen at `/memory/` and the small index page at `/`.

Plain HTML, JavaScript and CSS from `static/memory`, served with the test-call page's headers
but a stricter policy: the screen talks to this origin's API only. It holds no data and needs no
key to load; every read and change goes through the public API with the key the operator types.
"""

from __future__ import annotations

from importlib import resources
from typing import Final

from aiohttp import web

from worker.http.routes_context import Route
from worker.http.routes_page import PAGE_HEADERS

STATIC: Final = resources.files("worker.http").joinpath("static")
CONTENT_SECURITY_POLICY: Final = "; ".join(
    (
        "default-src 'none'",
        "script-src 'self'",  # the screen's own file only: no inline script, no eval
        "style-src 'self'",
        "img-src 'self'",
        "connect-src 'self'",  # the API on this origin, nothing else
        "frame-ancestors 'none'",
        "base-uri 'none'",
        "form-action 'none'",
    )
)
HEADERS: Final = {**PAGE_HEADERS, "Content-Security-Policy": CONTENT_SECURITY_POLICY}
_TYPES: Final = {".html": "text/html", ".js": "application/javascript", ".css": "text/css"}


def _file(folder: str, name: str) -> web.Response:
    text = STATIC.joinpath(folder, name).read_text("utf-8")
    content_type = _TYPES[name[name.rindex(".") :]]
    return web.Response(text=text, content_type=content_type, headers=HEADERS)


async def redirect(_: web.Request) -> web.StreamResponse:
    raise web.HTTPFound("/memory/")


async def home(_: web.Request) -> web.Response:
    return _file("home", "index.html")


async def index(_: web.Request) -> web.Response:
    return _file("memory", "index.html")


async def script(_: web.Request) -> web.Response:
    return _file("memory", "screen.js")


async def stylesheet(_: web.Request) -> web.Response:
    return _file("memory", "screen.css")


ROUTES = (
    Route("GET", "/", home, "public"),
    Route("GET", "/memory", redirect, "public"),
    Route("GET", "/memory/", index, "public"),
    Route("GET", "/memory/screen.js", script, "public"),
    Route("GET", "/memory/screen.css", stylesheet, "public"),
)
