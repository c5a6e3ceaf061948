-- Memory tables: facts, call records and the per-(agent, user) revision counter.
create schema if not exists stackbone_platform;

create table stackbone_platform.capabilities (
    name text primary key,
    added_at timestamptz not null default now()
);

create table stackbone_platform.memory_revisions (
    agent_id text not null,
    user_id text not null,
    revision bigint not null default 0,
    primary key (agent_id, user_id)
);

create table stackbone_platform.memory_facts (
    id uuid primary key default gen_random_uuid(),
    seq bigint generated always as identity,
    agent_id text not null,
    user_id text not null,
    content text not null,
    created_at timestamptz not null,
    updated_at timestamptz not null
);
-- recall reads all facts of one pair in insertion order
create index memory_facts_scope on stackbone_platform.memory_facts (agent_id, user_id, seq);

create table stackbone_platform.memory_calls (
    id uuid primary key default gen_random_uuid(),
    seq bigint generated always as identity,
    agent_id text not null,
    user_id text not null,
    started_at timestamptz not null,
    duration_seconds double precision,
    outcome text,
    run_id text,
    summary text not null,
    created_at timestamptz not null
);
-- recall reads the newest N call records of one pair: an index range scan with a limit,
-- so its cost does not grow with the table
create index memory_calls_recent on stackbone_platform.memory_calls
    (agent_id, user_id, started_at desc, seq desc);

-- one row: the stored model selection and the published extraction guidance
create table stackbone_platform.memory_extraction_settings (
    singleton boolean primary key default true check (singleton),
    model text,
    reasoning_effort text,
    guidance_draft text,
    guidance_published text,
    updated_at timestamptz not null default now()
);

insert into stackbone_platform.capabilities (name) values ('memory.basic');
