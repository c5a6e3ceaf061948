"""The operator listings' pages over HTTP: the query's `cursor` and `customer`, and the `Link`
header that names the next page.

A listing's body stays what it was (no paging member: an answer to a request without the new
parameters is byte for byte the one before them); a page with more after it carries
`Link: <path?...&cursor=...>; rel="next"` (RFC 8288), the request's own query with the next
cursor, so a client follows it as it is.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from aiohttp import web

from chat.paging import Cursor, check_customer, decode_cursor

NEXT_LINK: Final = (
    "Link",
    'the next page: <the same path and query with `cursor` set>; rel="next" (absent on the'
    " last page)",
)
"""The header as the OpenAPI document names it (`Route.answer_headers`)."""


def cursor_of(request: web.Request, check_id: Callable[[str], bool]) -> Cursor | None:
    return decode_cursor(request.query.get("cursor"), check_id)


def customer_of(request: web.Request) -> str | None:
    return check_customer(request.query.get("customer"))


def with_next(request: web.Request, response: web.Response, cursor: str | None) -> web.Response:
    """`response` with the `Link` to the next page, if there is one."""
    if cursor is not None:
        url = request.rel_url.update_query({"cursor": cursor})
        response.headers["Link"] = f'<{url}>; rel="next"'
    return response
