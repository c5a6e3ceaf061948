-- Reads of a person's memory: one row each time someone reads it (an operator's recall,
-- history, search of one person or export over HTTP or the CLI, a `memory_read` tool call on a
-- chat wire or a LiveKit text session). Who (the API key's name, the job, `cli`), when, which
-- channel and route or tool, and what was returned as counts only, never content. Listed per
-- person, exported with them, erased with them (`delete_all`) and kept under the agent's
-- retention (`reads_days`).
create table stackbone_platform.memory_reads (
    id bigint generated always as identity primary key,
    agent_id text not null,
    user_id text not null,
    at timestamptz not null default now(),
    reader text check (char_length(reader) between 1 and 200),
    channel text not null check (char_length(channel) between 1 and 40),
    route text not null check (char_length(route) between 1 and 100),
    returned jsonb not null default '{}'::jsonb
);
-- one person's reads, newest first; erasure goes through the same rows
create index memory_reads_pair on stackbone_platform.memory_reads (agent_id, user_id, id);
-- retention reads one agent's oldest rows
create index memory_reads_agent_at on stackbone_platform.memory_reads (agent_id, at);

alter table stackbone_platform.memory_retention
    add column reads_days integer check (reads_days between 1 and 36500);
