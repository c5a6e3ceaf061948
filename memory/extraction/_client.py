"""One JSON POST to the OpenAI-compatible provider: bearer key, a total timeout, one attempt.

aiohttp (already the service's HTTP stack) sends it over a kept-alive connection. The `openai`
SDK did this before; it spent about 2 ms of CPU per request turning typed parameters into JSON
and driving httpx, ten times what this costs, and that CPU is taken from the call's event loop
(a turn pass runs beside the agent's next reply). Nothing of the SDK was used beyond sending:
retries are off by contract and bodies are read strictly by their callers.

A failed request is `ProviderRequestFailed`, named like the SDK's exception classes
(`RateLimitError`, `APITimeoutError`, ...) so messages and logs keep their vocabulary. An error
body is never read: it may echo the prompt.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # imported where a request is sent: a process that never asks a model
    import aiohttp  # (a CLI recall) does not load aiohttp's client

DEFAULT_BASE_URL = "https://api.openai.com/v1"
_STATUS_NAMES = {
    400: "BadRequestError",
    401: "AuthenticationError",
    403: "PermissionDeniedError",
    404: "NotFoundError",
    409: "ConflictError",
    422: "UnprocessableEntityError",
    429: "RateLimitError",
}


class ProviderRequestFailed(Exception):
    """The request got no usable answer; `kind` says how (no provider text in it), `status`
    the HTTP status when the provider answered one outside 2xx."""

    def __init__(self, kind: str, status: int | None = None) -> None:
        super().__init__(kind)
        self.kind, self.status = kind, status


def status_failure(status: int) -> str:
    """The failure kind for an HTTP status outside 2xx."""
    if status >= 500:
        return "InternalServerError"
    return _STATUS_NAMES.get(status, "APIStatusError")


@dataclass(frozen=True, slots=True)
class ProviderAnswer:
    content_type: str | None
    body: bytes


class ProviderClient:
    """POSTs JSON under one base URL; one connection pool per event loop, closed by `aclose`."""

    def __init__(self, base_url: str | None, api_key: str | None, timeout_seconds: float) -> None:
        self._base = (base_url or DEFAULT_BASE_URL).rstrip("/")
        self._headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if api_key is not None:
            self._headers["Authorization"] = f"Bearer {api_key}"
        self._timeout_seconds = timeout_seconds
        self._session: aiohttp.ClientSession | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    async def post(self, path: str, body: dict[str, Any]) -> ProviderAnswer:
        import aiohttp  # noqa: PLC0415  (see TYPE_CHECKING above)

        data = json.dumps(body).encode("ascii")  # escaped: a lone surrogate cannot fail here
        timeout = aiohttp.ClientTimeout(total=self._timeout_seconds)
        try:
            async with self._open().post(
                f"{self._base}{path}", data=data, headers=self._headers, timeout=timeout
            ) as response:
                if not 200 <= response.status < 300:
                    raise ProviderRequestFailed(status_failure(response.status), response.status)
                return ProviderAnswer(response.headers.get("Content-Type"), await response.read())
        except TimeoutError:
            raise ProviderRequestFailed("APITimeoutError") from None
        except aiohttp.ClientError:
            raise ProviderRequestFailed("APIConnectionError") from None

    def _open(self) -> aiohttp.ClientSession:
        import aiohttp  # noqa: PLC0415  (see TYPE_CHECKING above)

        loop = asyncio.get_running_loop()
        if self._session is None or self._session.closed or self._loop is not loop:
            self._session = aiohttp.ClientSession(raise_for_status=False)
            self._loop = loop
        return self._session

    async def aclose(self) -> None:
        session, self._session = self._session, None
        if session is not None and self._loop is asyncio.get_running_loop():
            await session.close()
