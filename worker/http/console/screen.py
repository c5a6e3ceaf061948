"""The Memory screen at `/memory/` and the small index page at `/`.

Plain HTML, CSS and JavaScript ES modules from `static/memory` (every file of the folder, each at
`/memory/<name>`), served with the test-call page's headers but a stricter policy: scripts,
styles and connections from this origin only, nothing inline, no eval. The operator's key lives
in the tab's sessionStorage; under this policy no injected inline script can run to read it. The
screen holds no data and needs no key to load; every read and change goes through the public
API with the key.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from importlib import resources
from typing import Final

from aiohttp import web

from worker.http.console.call_page import PAGE_HEADERS
from worker.http.server.context import Route

STATIC: Final = resources.files("worker.http.console").joinpath("static")
CONTENT_SECURITY_POLICY: Final = "; ".join(
    (
        "default-src 'none'",
        "script-src 'self'",  # the screen's own modules only: no inline script, no eval
        "style-src 'self'",
        "img-src 'self'",
        "connect-src 'self'",  # the API on this origin, nothing else
        "frame-ancestors 'none'",
        "base-uri 'none'",
        "form-action 'none'",
    )
)
HEADERS: Final = {**PAGE_HEADERS, "Content-Security-Policy": CONTENT_SECURITY_POLICY}
Handler = Callable[[web.Request], Awaitable[web.Response]]
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


def _served(name: str) -> Handler:
    async def handler(_: web.Request) -> web.Response:
        return _file("memory", name)

    return handler


FILES: Final = tuple(
    sorted(
        entry.name
        for entry in STATIC.joinpath("memory").iterdir()
        if entry.name[entry.name.rfind(".") :] in (".js", ".css")
    )
)
"""The screen's scripts (the entry `screen.js` and the modules it imports) and stylesheet."""

ROUTES = (
    Route("GET", "/", home, "public"),
    Route("GET", "/memory", redirect, "public"),
    Route("GET", "/memory/", index, "public"),
    *(Route("GET", f"/memory/{name}", _served(name), "public") for name in FILES),
)
