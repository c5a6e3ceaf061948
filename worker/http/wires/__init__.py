"""The text wires: OpenAI Chat Completions (`openai`), Anthropic Messages (`anthropic`) and AG-UI
(`agui`: its body `agui_body`, its events `agui_stream`, its resumes `agui_resume`) over
the one turn every wire shares (`turns`: settings, customer, session, tool loop, record),
opened by `opening` and streamed by `stream`; each wire reads its own body
(`openai_body`, `anthropic_body`). Held tools' decisions (`decisions`, the routes) continue a
parked turn (`decision_turns.continue_turn`), plainly or streamed (`decision_stream`), in the
shapes of `decision_bodies`.

The face the app uses: `ROUTES`, and the app keys `create_app` fills; other wires use
`take_turn`, `continue_turn` and `held_member`; the CLI shows decisions as `decision_body`.
"""

from __future__ import annotations

from worker.http.server.context import Route
from worker.http.wires import agui, anthropic, decisions, openai
from worker.http.wires.decision_bodies import decision_body, held_member
from worker.http.wires.decision_turns import continue_turn
from worker.http.wires.opening import BOUND_KEYS
from worker.http.wires.turns import CHAT_CONFIG, CHAT_MODEL, WireTurn, take_turn

ROUTES: tuple[Route, ...] = (*openai.ROUTES, *anthropic.ROUTES, *agui.ROUTES, *decisions.ROUTES)

__all__ = [
    "BOUND_KEYS",
    "CHAT_CONFIG",
    "CHAT_MODEL",
    "ROUTES",
    "WireTurn",
    "continue_turn",
    "decision_body",
    "held_member",
    "take_turn",
]
