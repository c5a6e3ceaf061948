"""The test-call page: plain HTML and JavaScript served by the web process at `/voice/`.

The page talks to the voice routes with an API key the operator pastes in, and to LiveKit with
the livekit-client browser library. That library comes from the npm registry through the
project's `package.json` (`npm ci` at the repository root); its built file is served from
`node_modules` and never committed. When it is missing, the script route answers with a small
script that tells the page how to install it, so the page can say so instead of failing blank.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Final

from aiohttp import web

from worker.http.server.context import Route

STATIC: Final = resources.files("worker.http.console").joinpath("static", "voice")
CLIENT_JS_PATH: web.AppKey[Path] = web.AppKey("client_js_path")
"""Where this app serves livekit-client from; `create_app` sets the default below."""
CLIENT_JS: Final = (
    Path(__file__).resolve().parents[3]
    / "node_modules"
    / "livekit-client"
    / "dist"
    / "livekit-client.umd.js"
)
INSTALL_HINT: Final = "livekit-client is not installed: run `npm ci` in the repository root"
_FILES: Final = {
    "index.html": "text/html",
    "page.js": "application/javascript",
    "page.css": "text/css",
}
CONTENT_SECURITY_POLICY: Final = "; ".join(
    (
        "default-src 'none'",
        "script-src 'self'",  # the page's own files only: no inline script, no eval
        "style-src 'self'",
        "img-src 'self'",
        "media-src 'self' blob: mediastream:",  # the agent's audio track
        # the rooms API on this origin, and LiveKit: its signalling WebSocket (ws: for a local
        # dev server) and, on LiveKit Cloud, the HTTPS region lookup
        "connect-src 'self' https: wss: ws:",
        "frame-ancestors 'none'",
        "base-uri 'none'",
        "form-action 'none'",
    )
)
_NO_STORE: Final = {"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"}
PAGE_HEADERS: Final = {
    **_NO_STORE,
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",  # frame-ancestors for browsers that predate CSP level 2
}


async def redirect(_: web.Request) -> web.StreamResponse:
    raise web.HTTPFound("/voice/")


def _static(name: str) -> web.Response:
    text = STATIC.joinpath(name).read_text("utf-8")
    return web.Response(text=text, content_type=_FILES[name], headers=PAGE_HEADERS)


async def index(_: web.Request) -> web.Response:
    return _static("index.html")


async def script(_: web.Request) -> web.Response:
    return _static("page.js")


async def stylesheet(_: web.Request) -> web.Response:
    return _static("page.css")


async def client_library(request: web.Request) -> web.StreamResponse:
    path = request.app[CLIENT_JS_PATH]
    if path.is_file():
        headers = {**PAGE_HEADERS, "Content-Type": "application/javascript"}
        return web.FileResponse(path, headers=headers)
    hint = f"window.LIVEKIT_CLIENT_MISSING = {json.dumps(INSTALL_HINT)};\n"
    return web.Response(text=hint, content_type="application/javascript", headers=PAGE_HEADERS)


ROUTES = (
    Route("GET", "/voice", redirect, "public"),
    Route("GET", "/voice/", index, "public"),
    Route("GET", "/voice/page.js", script, "public"),
    Route("GET", "/voice/page.css", stylesheet, "public"),
    Route("GET", "/voice/livekit-client.umd.js", client_library, "public"),
)
