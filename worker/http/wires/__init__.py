"""The text wires: OpenAI Chat Completions (`openai`) and Anthropic Messages (`anthropic`) over
the one turn every wire shares (`turns`: settings, customer, session, tool loop, record),
opened by `opening` and streamed by `stream`; each wire reads its own body
(`openai_body`, `anthropic_body`).

The face the app uses: `ROUTES`, and the app keys `create_app` fills.
"""

from __future__ import annotations

from worker.http.server.context import Route
from worker.http.wires import anthropic, openai
from worker.http.wires.opening import BOUND_KEYS
from worker.http.wires.turns import CHAT_CONFIG, CHAT_MODEL, WireTurn, take_turn

ROUTES: tuple[Route, ...] = (*openai.ROUTES, *anthropic.ROUTES)

__all__ = ["BOUND_KEYS", "CHAT_CONFIG", "CHAT_MODEL", "ROUTES", "WireTurn", "take_turn"]
