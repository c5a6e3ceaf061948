-- migrate: no-transaction
-- Retention per agent: how many days each kind of record is kept; null keeps it until it is
-- deleted (the default, and the only choice for facts: they stay until the person or the
-- model removes them). The retention pass (`worker.ops_retention`) deletes what is older, in
-- batches. One row per agent that set any of it.
--
-- No transaction: the index on call records is built concurrently, so a large table keeps
-- taking writes while it builds; every statement can run again after a crash.
create table if not exists stackbone_platform.memory_retention (
    agent_id text primary key,
    calls_days integer check (calls_days between 1 and 36500),
    sessions_days integer check (sessions_days between 1 and 36500),
    ops_days integer check (ops_days between 1 and 36500),
    journals_days integer check (journals_days between 1 and 36500),
    updated_at timestamptz not null default now()
);

-- the pass reads one agent's oldest call records: a range of this index, whatever the table's size
create index concurrently if not exists memory_calls_agent_created
    on stackbone_platform.memory_calls (agent_id, created_at);
