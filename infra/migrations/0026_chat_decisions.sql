-- Held tools: a turn parked on a tool call until a person decides (chat.decisions).
--
-- A row is written when the model calls a tool its agent lists under `interrupt_on`: the
-- call (tool, arguments as the model wrote them, the decisions allowed), who the turn acted
-- for (the agent, the identities and the customer), the settings snapshot the turn started
-- with and the turn so far (`progress`: what it added to the thread, the step's calls still
-- to run, its counters). All of it is the server's: a decision names only the row's id and
-- what the person decided. `status` leaves `pending` once, in one statement, so two racing
-- decisions have one winner. A repeated pause of the same turn writes a new row that keeps
-- the first snapshot. `failure` is the error code of a continuation that failed after its
-- decision was taken (the turn was not recorded).
create table stackbone_platform.chat_decisions (
    id uuid primary key,
    session_id text not null
        references stackbone_platform.chat_sessions (id) on delete cascade,
    session_key text not null,
    agent_id text not null,
    tool_call_id text not null,
    tool text not null,
    arguments text not null,
    allowed text[] not null,
    identities jsonb not null,
    user_id text,
    settings jsonb not null,
    progress jsonb not null,
    status text not null default 'pending'
        check (status in ('pending', 'approved', 'edited', 'rejected')),
    decision jsonb,
    failure text,
    created_at timestamptz not null default now(),
    decided_at timestamptz
);
create index chat_decisions_agent on stackbone_platform.chat_decisions (agent_id, created_at desc);
create index chat_decisions_pending on stackbone_platform.chat_decisions (agent_id)
    where status = 'pending';

-- A session whose turn is parked names its pending decision: the one-statement claim of every
-- new turn refuses it (409 decision_pending) without another query.
alter table stackbone_platform.chat_sessions
    add column pending_decision uuid;

-- Each recorded turn's run detail: its tool calls with arguments, results, durations, errors
-- and decisions (tokens and the duration are columns already).
alter table stackbone_platform.chat_turns
    add column run jsonb not null default '[]'::jsonb;
