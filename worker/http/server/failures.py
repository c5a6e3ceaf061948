"""Coded failures that a room raises and the one translation (`errors`) must know by type.

They live here, below the rooms, so `errors` imports no room: the wires raise `ModelNotFound`,
the ops stream raises `StreamsFull`, the export `ExportsBusy`.
"""

from __future__ import annotations

from typing import ClassVar

from memory.contract import CodedError


class ModelNotFound(CodedError, LookupError):
    """`model` names no agent of the catalog (404, as the wires answer an unknown model)."""

    code: ClassVar[str] = "model_not_found"

    def __init__(self) -> None:
        super().__init__("model: no agent with this id is declared", field="model")


class StreamsFull(CodedError):
    """As many ops streams are open in this process as it allows (503)."""

    code: ClassVar[str] = "server_busy"

    def __init__(self, limit: int) -> None:
        super().__init__(f"at most {limit} ops streams are open at once; retry shortly")


class ExportsBusy(CodedError):
    """As many exports are streaming in this process as it allows (429, `Retry-After: 1`)."""

    code: ClassVar[str] = "export_busy"

    def __init__(self, limit: int) -> None:
        super().__init__(
            f"exports are at their limit ({limit} streaming at once in this process); retry shortly"
        )
