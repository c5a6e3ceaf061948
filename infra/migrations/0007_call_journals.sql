-- Call journals: what a call has heard so far, kept while its job runs (lifecycle.journal).
--
-- One header per call and one row per heard message. The normal save deletes the header in the
-- statement that writes the call's memory; a sweeper in a worker's main process saves (or
-- drops) journals whose heartbeat stopped. Entries hold transcript text, so delete_all erases
-- a person's journals with the rest of their memory.
create table stackbone_platform.call_journals (
    id uuid primary key default gen_random_uuid(),
    job_id text not null,
    agent_id text not null,
    user_id text not null,
    instructions text,
    brief_remember text[] not null default '{}',
    brief_forget text[] not null default '{}',
    consolidate text not null,
    covered integer not null default 0,
    started_at timestamptz not null,
    heartbeat_at timestamptz not null default now(),
    save_started boolean not null default false,
    lease_holder text,
    lease_until timestamptz,
    unique (job_id, agent_id, user_id)
);
-- erasure goes through one pair's journals; the sweeper looks for stopped heartbeats
create index call_journals_pair on stackbone_platform.call_journals (agent_id, user_id);
create index call_journals_heartbeat on stackbone_platform.call_journals (heartbeat_at);

create table stackbone_platform.call_journal_entries (
    journal_id uuid not null
        references stackbone_platform.call_journals (id) on delete cascade,
    position integer not null check (position >= 0),
    role text not null check (role in ('user', 'assistant')),
    content text not null,
    primary key (journal_id, position)
);
