"""The operator console: the Memory screen and home page (`screen`), the test-call page
(`call_page`), and their files under `static/` (served at `/`, `/memory/` and `/voice/`).

The face the app uses: `PAGES` (static files: no data and no key, so kept apart from the API
table) and the app key of the livekit-client file `create_app` fills.
"""

from __future__ import annotations

from worker.http.console import call_page, screen
from worker.http.console.call_page import CLIENT_JS, CLIENT_JS_PATH
from worker.http.server.context import Route

PAGES: tuple[Route, ...] = (*call_page.ROUTES, *screen.ROUTES)

__all__ = ["CLIENT_JS", "CLIENT_JS_PATH", "PAGES"]
