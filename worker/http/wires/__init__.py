"""The text wires: OpenAI Chat Completions (`openai`), Anthropic Messages (`anthropic`) and AG-UI
(`agui`: its body `agui_body`, its events `agui_stream`, its resumes `agui_resume`) over
the one turn service every wire shares (`chat.ChatTurns`: settings, customer, session, tool
loop, record), reached through `turns` (the agent a request names, the app's service) and
streamed by `stream`; each wire reads its own body (`openai_body`, `anthropic_body`) and the
headers every wire shares (`turn_headers`). Held
tools' decisions (`decisions`, the routes) continue a parked turn (`turns.continue_turn`),
plainly or streamed (`decision_stream`), answering the models of
`worker.http.server.answers.decisions` (`decision_bodies`: the request).

The face the app uses: `ROUTES`, and the app key `create_app` fills; other wires use
`turn_request`, `chat_turns` and `continue_turn`; the CLI shows decisions in
the same models.
"""

from __future__ import annotations

from worker.http.server.context import Route
from worker.http.wires import agui, anthropic, decisions, openai
from worker.http.wires.turns import (
    CHAT_TURNS,
    TURN_AGENTS,
    DirectoryAgents,
    chat_turns,
    continue_turn,
    turn_request,
)

ROUTES: tuple[Route, ...] = (*openai.ROUTES, *anthropic.ROUTES, *agui.ROUTES, *decisions.ROUTES)

__all__ = [
    "CHAT_TURNS",
    "ROUTES",
    "TURN_AGENTS",
    "DirectoryAgents",
    "chat_turns",
    "continue_turn",
    "turn_request",
]
