-- migrate: no-transaction
-- Retention of the ops log: rows older than MEMORY_OPS_RETENTION_DAYS are deleted in batches
-- (`memory.store._ops_retention`), oldest first, off the request path.
--
-- `memory_ops_expired` keeps, per agent, the highest id retention has deleted: a consumer whose
-- cursor is below it has missed events and is told so (`cursor_expired`), never given a gap.
-- The created_at index finds the oldest rows without scanning the log; it is built
-- concurrently, so a large log keeps taking writes meanwhile.
create table if not exists stackbone_platform.memory_ops_expired (
    agent_id text primary key,
    through_id bigint not null
);
create index concurrently if not exists memory_ops_created
    on stackbone_platform.memory_ops (created_at);
