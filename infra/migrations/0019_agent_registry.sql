-- The agent registry: every agent a process declared (through AGENTS, or a worker attaching
-- memory to its own agent), so the web process, the console and the keys know agents whose code
-- they cannot import. One row per agent id: the code's memory defaults (as JSON), its tool names
-- and document collections, where it was declared, and when it was first and last seen. When a
-- declaration with other defaults replaces the row's, `conflict_with` keeps where the replaced
-- one came from (last registration wins). Removing a row never touches memory.
create table stackbone_platform.agent_registry (
    agent_id text primary key check (char_length(agent_id) between 1 and 200),
    memory jsonb not null default '{}'::jsonb,
    tools text[] not null default '{}',
    collections text[] not null default '{}',
    declared_in text not null check (char_length(declared_in) between 1 and 500),
    source text not null check (source in ('module', 'worker')),
    first_seen timestamptz not null default now(),
    last_seen timestamptz not null default now(),
    conflict_with text,
    conflict_at timestamptz
);
