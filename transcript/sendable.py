"""The heard transcript as `memory` takes it: what the caller heard, in text a request can hold.

The worker assembles the heard transcript itself, from what the model said; it is not client
input, yet `memory.add` and `memory.consolidate` read it by the client-input rules, which
refuse a NUL and a lone surrogate. The journal keeps both exactly (`memory.store`); the saves
send a NUL dropped (it was never audible) and a lone surrogate as U+FFFD, as a speech engine
would have read it. Text holding neither is sent unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from transcript.models import Message

_NUL: Final = "\x00"
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def sendable_text(text: str) -> str:
    """`text` without NUL, each lone surrogate as U+FFFD."""
    return _LONE_SURROGATE.sub("\ufffd", text.replace(_NUL, ""))


def sendable(messages: Sequence[Message]) -> list[Message]:
    """The messages, in order, with `sendable_text` content."""
    return [Message(role=m["role"], content=sendable_text(m["content"])) for m in messages]
