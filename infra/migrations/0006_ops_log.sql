-- The ops log: one row per write that changed facts, the `memory.ops` event a consumer replays.
--
-- `id` is the cursor (`GET /api/memory/ops?after=`): it only grows. The row holds fact text (a
-- CRM needs it), so delete_all erases a person's rows with the rest of their memory.
create table stackbone_platform.memory_ops (
    id bigint generated always as identity primary key,
    agent_id text not null,
    user_id text not null,
    call_id text,
    turn integer,
    final boolean not null,
    revision bigint not null,
    model text not null,
    latency_ms double precision not null,
    ops jsonb not null,
    created_at timestamptz not null default now()
);
-- replay reads one agent's rows after a cursor; erasure goes through one pair's rows
create index memory_ops_agent on stackbone_platform.memory_ops (agent_id, id);
create index memory_ops_pair on stackbone_platform.memory_ops (agent_id, user_id);
