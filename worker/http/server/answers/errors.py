"""The one error answer every route may give (`worker.http.server.errors` writes it)."""

from __future__ import annotations

from worker.http.server.answers.base import Answer


class ErrorDetail(Answer):
    code: str
    message: str
    field: str | None
    # on the OpenAI-compatible chat wire (`/v1/...`) also OpenAI's own two fields
    type: str | None = None
    param: str | None = None


class ErrorAnswer(Answer):
    """Every error: the status follows from the code (`worker.http.server.statuses`)."""

    error: ErrorDetail
