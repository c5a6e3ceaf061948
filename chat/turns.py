"""The text turn as a service: `ChatTurns` opens a turn's session, holds it, runs the tool loop,
parks a held call or records the turn, and releases the session, for every wire alike and for
a person's decision on a parked call.

It takes plain values (`chat.turn_request`: the agent, the new messages, who the turn is for,
which session) and gives a `TurnResult`; the wires only read their request into those values
and write the result in their shape. Every database step is bounded by the service's deadline
(past it `Unavailable`), while a model request keeps its own timeout. A turn on a session keeps
its progress as it goes (`chat.journal`), so a failed turn sent again goes on from it; a turn
without one that failed after a call acted says so (`ActedThenFailed`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, replace
from typing import Final, TypeVar

import asyncpg
import structlog

from chat.config import ChatConfig
from chat.decisions import DecisionRow, decide, mark_failed, read_decision
from chat.held import Decision, DecisionTaken, check_decision
from chat.journal import (
    ActedThenFailed,
    CallNote,
    Journal,
    KeptTurn,
    SessionJournal,
    request_digest,
    settled,
)
from chat.memory_tools import CHAT_ORIGIN, Origin, ToolScope, memory_tools
from chat.model import ConversationModel, Relay
from chat.restore import Restored, restore_thread
from chat.session_claim import (
    Claim,
    HeldClaim,
    OpenedTurn,
    address_of,
    claim_turn,
    holding,
    open_turn,
    thread,
)
from chat.session_lease import kept_lease
from chat.tool_loop import Resume, ToolObserver, TurnInput, run_turn
from chat.toolbox import Tool, toolset
from chat.turn_request import (
    SessionRef,
    TurnAgent,
    TurnAgents,
    TurnFacts,
    TurnRequest,
    last_user_text,
    turn_input,
)
from chat.turn_result import Message, TurnResult
from chat.turn_start import starting_point
from chat.turn_write import write_turn
from infra.deadline import Deadline, Late, within
from memory.api import Memory
from memory.contract import Unavailable
from memory.store import load_call_settings

log = structlog.get_logger(__name__)
T = TypeVar("T")
RECORD_MARGIN: Final = 0.2
"""The share of the database deadline left for a record's answer to travel back: the database
records the turn only before the rest of the deadline has passed on its own clock."""
AgentOf = Callable[[str], TurnAgent]
"""The agent a stored turn names, as the caller may reach it (`UnknownAgent` otherwise)."""


@dataclass(frozen=True, slots=True)
class _Hearers:
    relay: Relay | None
    observer: ToolObserver | None
    journal: Journal


class ChatTurns:
    """Text turns over one pool, conversation model and memory."""

    def __init__(
        self,
        pool: asyncpg.Pool,
        model: ConversationModel,
        config: ChatConfig,
        memory: Memory,
        agents: TurnAgents,
        *,
        deadline_seconds: float,
    ) -> None:
        self.pool, self.model, self.config, self.memory = pool, model, config, memory
        self.agents = agents
        self.deadline_seconds = deadline_seconds
        self.bound_keys: dict[str, str] = {}
        """Agent id -> the identity key this process saw bound (bound keys never change)."""

    async def bounded(
        self, work: Awaitable[T], *, deadline: Deadline | None = None, let_finish: bool = False
    ) -> T:
        """A database step within the deadline (or `deadline`); past it `Unavailable`.
        `let_finish`: the step is left to land rather than cancelled."""
        deadline = Deadline.after(self.deadline_seconds) if deadline is None else deadline
        try:
            return await within(deadline, work, step="chat.database", let_finish=let_finish)
        except Late:
            raise Unavailable("the database did not answer within the deadline") from None

    async def take(
        self,
        request: TurnRequest,
        relay: Relay | None = None,
        observer: ToolObserver | None = None,
    ) -> TurnResult:
        """Run one turn; its session (if any) is held for it and released after it, or marked
        pending when the turn parked on a held tool (`result.held`). A turn the session kept
        progress of (`chat.journal`) goes on from it."""
        agent = await self.agents(request.agent)
        opened = await self._open(agent, request.session, request.identities)
        note = CallNote()
        try:
            async with self._holding(opened.claim) as hold:
                hearers = _Hearers(relay, observer, note)
                return await self._take(agent, request, opened, hold, hearers)
        except Exception as exc:
            if note.acted and not isinstance(exc, ConnectionError):
                raise ActedThenFailed(exc) from exc  # a retry would run that call again
            raise

    async def _take(
        self,
        agent: TurnAgent,
        request: TurnRequest,
        opened: OpenedTurn,
        hold: HeldClaim,
        hearers: _Hearers,
    ) -> TurnResult:
        held, session = opened.claim, request.session
        new = request.messages if request.reconcile is None else request.reconcile(opened.thread)
        found = await starting_point(self.pool, self.bounded, held, session, opened, request, new)
        origin = request.origin
        if held is not None:  # the save names the session the turn keeps
            origin = replace(origin, session_id=held.session_id)
        settings = opened.settings
        if request.prompt is not None:  # a draft tried: the turn's snapshot holds it (parks too)
            settings = replace(settings, prompt=request.prompt)
        facts = TurnFacts(
            agent.name,
            request.identities,
            found.new,
            request.options,
            settings,
            request.client_tools,
            origin,
        )
        turn = self._input(agent, facts, found.thread, can_park=held is not None)
        digest, carried = found.digest, found.carried
        if held is not None:
            hearers = replace(hearers, journal=self._journal(held, facts, digest))
        result = await self._answer(held, turn, hearers, carried)
        if held is not None and session is not None:
            await self._finish(hold, session, facts, turn, result)
        return result

    async def read_decision(self, decision_id: str) -> DecisionRow:
        return await self.bounded(read_decision(self.pool, decision_id))

    async def restore(
        self, agent_id: str, session_key: str, identities: dict[str, str]
    ) -> Restored:
        """A `session`'s thread and pending decision as a reconnecting client is given them
        (`chat.restore`): read only, nothing claimed, no model asked."""
        agent = await self.agents(agent_id)
        key = self.bound_keys.get(agent.name)
        if key is None:
            settings = await self.bounded(load_call_settings(self.pool, agent.name, agent.code))
            key = None if settings.binding is None else settings.binding.identity_key
            if key is not None:
                self.bound_keys[agent.name] = key
        address = address_of("session", agent.name, session_key, key, identities)
        return await self.bounded(restore_thread(self.pool, address))

    async def resume(
        self,
        row: DecisionRow,
        decision: Decision,
        agent_of: AgentOf,
        relay: Relay | None = None,
        observer: ToolObserver | None = None,
        *,
        origin: Origin = CHAT_ORIGIN,
    ) -> TurnResult:
        """Decide a pending call (`row`, as read) and run the rest of its turn with the stored
        identity, agent and settings snapshot; `result.held` when it parked again. A
        continuation that fails after the decision was taken keeps the decision, with its
        failure code. Its memory saves come from `origin` (the deciding wire and key) and
        the decided turn's session."""
        if row.status != "pending":
            raise DecisionTaken()
        t = row.turn
        facts = TurnFacts(
            t.agent_id, t.identities, t.new, t.options, t.settings, t.client_tools, origin
        )
        turn = self._input(agent_of(t.agent_id), facts, [], can_park=True)
        tool = toolset(turn.tools).get(row.pending.tool)
        edited = check_decision(decision, row.pending.allowed, tool, row.pending.tool)
        lease = self.config.lease_seconds
        decided = await self.bounded(decide(self.pool, row.pending.id, decision, lease))
        if decided.kind == "session":  # its memory saves name the session (tools bound again)
            kept = replace(origin, session_id=decided.claim.session_id)
            facts = replace(facts, origin=kept)
            turn = self._input(agent_of(t.agent_id), facts, [], can_park=True)
        session = SessionRef(
            "session" if decided.kind == "session" else "conversation", t.session_key
        )
        resume = Resume(row.progress, decision, edited)
        try:
            async with self._holding(decided.claim) as hold:
                if session.kind == "session":
                    earlier = await self.bounded(thread(self.pool, decided.claim.session_id))
                    turn = replace(turn, thread=earlier)
                digest = request_digest(facts.new, facts.options, facts.client_tools)
                journal = self._journal(decided.claim, facts, digest)
                async with kept_lease(self.pool, decided.claim, lease):
                    result = await run_turn(
                        self.model,
                        turn,
                        self.config.max_tool_steps,
                        relay,
                        observer,
                        resume=resume,
                        journal=journal,
                    )
                await self._finish(hold, session, facts, turn, result)
                return result
        except (Exception, asyncio.CancelledError) as exc:  # cancelled: the client went away
            await self._failed(row.pending.id, exc)
            raise

    def _holding(self, held: Claim | None) -> AbstractAsyncContextManager[HeldClaim]:
        """The turn's claim, released when the turn ends without recording or parking."""
        return holding(self.pool, held)

    async def _open(
        self, agent: TurnAgent, session: SessionRef | None, identities: dict[str, str]
    ) -> OpenedTurn:
        """The turn's settings and, behind a session, its claim and thread, in one statement
        when the agent's bound identity key is the one predicted (the key this process saw
        bound before, else the one the agent declares: a bound key never changes); a wrong
        prediction costs a claim and a thread read under the right address."""
        if session is None:
            return OpenedTurn(
                await self.bounded(load_call_settings(self.pool, agent.name, agent.code))
            )
        predicted = self.bound_keys.get(agent.name, agent.code.identity_key)
        address = address_of(session.kind, agent.name, session.key, predicted, identities)
        lease = self.config.lease_seconds
        opened, bound = await self.bounded(
            open_turn(self.pool, address, agent.code, predicted, lease)
        )
        if bound is not None:
            self.bound_keys[agent.name] = bound
        if bound == predicted:
            return opened
        address = address_of(session.kind, agent.name, session.key, bound, identities)
        held, progress = await self.bounded(claim_turn(self.pool, address, lease))
        async with self._holding(held) as hold:
            kept = session.kind == "session"
            earlier = await self.bounded(thread(self.pool, address.id)) if kept else []
            hold.claim = None
        return OpenedTurn(opened.settings, held, earlier, progress)

    def _journal(self, held: Claim, facts: TurnFacts, digest: str) -> Journal:
        kept = KeptTurn(digest, facts.new, last_user_text(facts.new), TurnResult())
        return SessionJournal(self.pool, held, kept, self.deadline_seconds)

    async def _answer(
        self, held: Claim | None, turn: TurnInput, hearers: _Hearers, carried: KeptTurn | None
    ) -> TurnResult:
        """The turn's result: run under the session's lease, from the kept progress if any; a
        kept whole answer is given again without asking the model."""
        if carried is not None and carried.complete:
            if hearers.relay is not None and carried.result.reply:
                await hearers.relay(carried.result.reply)
            return carried.result
        carry = None if carried is None else settled(carried.result)
        async with kept_lease(self.pool, held, self.config.lease_seconds):
            return await run_turn(
                self.model,
                turn,
                self.config.max_tool_steps,
                hearers.relay,
                hearers.observer,
                journal=hearers.journal,
                carry=carry,
            )

    async def _finish(
        self,
        hold: HeldClaim,
        session: SessionRef,
        facts: TurnFacts,
        turn: TurnInput,
        result: TurnResult,
    ) -> None:
        """Record the turn or park it, within the deadline; the write is never cancelled: it
        lands whole or, reaching the database after the deadline (its clock), keeps the answer
        as the session's progress instead, so a client told the turn failed never finds it
        kept. Either way the claim is given up."""
        held = hold.claim
        assert held is not None
        deadline = Deadline.after(self.deadline_seconds)
        until = held.server_time(deadline.at - RECORD_MARGIN * self.deadline_seconds)
        write = write_turn(self.pool, held, session, facts, turn, result, until)
        await self.bounded(write, deadline=deadline, let_finish=True)
        hold.claim = None  # released by the record, or by parking

    async def _failed(self, decision_id: str, exc: BaseException) -> None:
        """Note a continuation's failure on its taken decision (best effort: its own failure
        is logged)."""
        code = "client_closed_request"  # the client went away (the request was cancelled)
        if isinstance(exc, Exception) and not isinstance(exc, ConnectionError):
            code = str(getattr(exc, "code", "internal_error"))
        log.warning("chat.continuation_failed", decision_id=decision_id, error_code=code)
        try:
            await self.bounded(mark_failed(self.pool, decision_id, code))
        except Exception as failure:  # the continuation's own error stands
            log.warning("chat.decision_mark_failed", error_type=type(failure).__name__)

    def _input(
        self, agent: TurnAgent, facts: TurnFacts, earlier: list[Message], *, can_park: bool
    ) -> TurnInput:
        if facts.settings.prompt is not None:  # published (or a Playground's draft): its text
            agent = replace(agent, instructions=facts.settings.prompt)
        return turn_input(agent, facts, self._memory_tools, earlier=earlier, can_park=can_park)

    def _memory_tools(self, scope: ToolScope) -> list[Tool]:
        """The memory tools of a turn, their database steps within the deadline."""
        return memory_tools(self.memory, scope, self.bounded)
