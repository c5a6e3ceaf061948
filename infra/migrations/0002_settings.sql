-- Per-agent memory settings: Studio overrides, the fixed identity binding, the activity log,
-- and timestamps on the shared extraction settings row.

-- one row per agent with at least one override; a null column means "no override"
create table stackbone_platform.memory_agent_overrides (
    agent_id text primary key,
    read boolean,
    save boolean,
    instructions text check (char_length(instructions) between 1 and 20000),
    updated_at timestamptz not null default now()
);

-- written once per agent and never updated or deleted by the application
create table stackbone_platform.memory_identity_bindings (
    agent_id text primary key,
    identity_key text not null check (char_length(identity_key) between 1 and 100),
    source text not null check (source in ('code', 'studio')),
    fixed_at timestamptz not null default now()
);

-- who changed which field names, never the values (instruction and guidance text stay out)
create table stackbone_platform.memory_settings_activity (
    id bigint generated always as identity primary key,
    at timestamptz not null default now(),
    actor text not null,
    agent_id text,
    action text not null check (action in ('save', 'reset', 'bind', 'publish')),
    fields text[] not null
);
create index memory_settings_activity_agent
    on stackbone_platform.memory_settings_activity (agent_id, id desc);

alter table stackbone_platform.memory_extraction_settings
    add column guidance_draft_saved_at timestamptz,
    add column guidance_published_at timestamptz;
