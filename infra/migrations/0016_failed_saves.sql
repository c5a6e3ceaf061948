-- Failed saves: one row per memory pass (a call's save, a turn pass, a swept save, a chat
-- save) that failed, with the failure's code, so the operator console counts them per agent
-- (`GET /api/memory/overview`). No user id, no text: only the agent, the code and the time.
-- Each insert also deletes the agent's rows older than 7 days, so the table stays small.
create table stackbone_platform.memory_failed_saves (
    id bigint generated always as identity primary key,
    agent_id text not null,
    reason text not null check (char_length(reason) between 1 and 100),
    at timestamptz not null default now()
);
create index memory_failed_saves_agent_at on stackbone_platform.memory_failed_saves (agent_id, at);
