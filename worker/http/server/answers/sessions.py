"""Chat sessions as the operator routes answer them and `caller-memory sessions ...` prints
them: a session, its turns with their run detail, a deletion."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal, Self

from worker.http.server.answers.base import Answer, Number, Stored, Timestamp

if TYPE_CHECKING:
    from chat import SessionRow, ToolRun, TurnResult, TurnRow


class ChatSessionItem(Answer):
    session_id: str
    kind: Literal["session", "conversation"]
    key: str
    user_id: str | None
    identities: dict[str, str]  # every identity the session's turns named
    created_at: Timestamp
    updated_at: Timestamp
    turns: int

    @classmethod
    def of(cls, row: SessionRow) -> Self:
        return cls(
            session_id=row.id,
            kind=row.kind,
            key=row.key,
            user_id=row.user_id,
            identities=row.identities,
            created_at=row.created_at,
            updated_at=row.updated_at,
            turns=row.turns,
        )


class ChatSessions(Answer):
    agent_id: str
    sessions: list[ChatSessionItem]

    @classmethod
    def of(cls, agent_id: str, rows: list[SessionRow]) -> Self:
        return cls(agent_id=agent_id, sessions=[ChatSessionItem.of(r) for r in rows])


class ToolCallItem(Answer):
    """One tool call of a turn's run detail (`arguments`: what it ran with)."""

    id: str
    name: str
    arguments: str
    result: str | None  # None: a client's tool (not run here)
    error: str | None
    duration_ms: Number
    decision: Literal["approve", "edit", "reject"] | None

    @classmethod
    def of(cls, run: ToolRun) -> Self:
        return cls(
            id=run.id,
            name=run.name,
            arguments=run.arguments,
            result=run.result,
            error=run.error,
            duration_ms=run.duration_ms,
            decision=run.decision,
        )


class RunDetail(Answer):
    # each call as recorded (`chat.progress.run_json`; a stored turn's in its stored order)
    tool_calls: list[Annotated[dict[str, Any], Stored(ToolCallItem)]]
    prompt_tokens: int
    completion_tokens: int
    duration_ms: Number

    @classmethod
    def of(cls, result: TurnResult) -> Self:
        """A turn's run detail just run (as the sessions route shows each turn's)."""
        return cls(
            tool_calls=[ToolCallItem.of(r).wire() for r in result.run],
            prompt_tokens=result.prompt_tokens,
            completion_tokens=result.completion_tokens,
            duration_ms=result.duration_ms,
        )


class ChatTurnItem(Answer):
    position: int
    user_message: str
    reply: str
    prompt_tokens: int
    completion_tokens: int
    duration_ms: Number
    created_at: Timestamp
    run: RunDetail

    @classmethod
    def of(cls, row: TurnRow) -> Self:
        run = RunDetail(
            tool_calls=row.run,
            prompt_tokens=row.prompt_tokens,
            completion_tokens=row.completion_tokens,
            duration_ms=row.duration_ms,
        )
        return cls(
            position=row.position,
            user_message=row.user_message,
            reply=row.reply,
            prompt_tokens=row.prompt_tokens,
            completion_tokens=row.completion_tokens,
            duration_ms=row.duration_ms,
            created_at=row.created_at,
            run=run,
        )


class ChatSession(Answer):
    agent_id: str
    session: ChatSessionItem
    turns: list[ChatTurnItem]

    @classmethod
    def of(cls, agent_id: str, row: SessionRow, turns: list[TurnRow]) -> Self:
        session = ChatSessionItem.of(row)
        return cls(agent_id=agent_id, session=session, turns=[ChatTurnItem.of(t) for t in turns])


class ChatSessionDeleted(Answer):
    agent_id: str
    session_id: str
    deleted: Literal[True]
