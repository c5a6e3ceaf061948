-- Fact history: the versions a fact had before its current one, each with its validity.
--
-- A fact's current version lives in memory_facts (valid from updated_at, still valid); every
-- version is named by version_id, which an update replaces. An update or a delete moves the
-- version it ends into memory_fact_versions with valid_to set. delete_all erases these rows too.

-- versions closed since the pair's last erasure: the number kept is the least of this and the
-- bound, so a write knows how many of the oldest to drop without counting them
alter table stackbone_platform.memory_revisions
    add column closed_versions bigint not null default 0;

alter table stackbone_platform.memory_facts
    add column version_id uuid not null default gen_random_uuid();

create table stackbone_platform.memory_fact_versions (
    id uuid primary key,                      -- the version id the fact carried while current
    seq bigint generated always as identity,  -- order in which versions were closed
    fact_id uuid not null,
    fact_seq bigint not null,                 -- the fact's insertion order, kept after a delete
    agent_id text not null,
    user_id text not null,
    content text not null,
    valid_from timestamptz not null,
    valid_to timestamptz not null,
    ended_by text not null check (ended_by in ('update', 'delete'))
);
-- history reads, pruning the oldest and erasure all go through one pair's rows in close order
create index memory_fact_versions_scope
    on stackbone_platform.memory_fact_versions (agent_id, user_id, seq);
