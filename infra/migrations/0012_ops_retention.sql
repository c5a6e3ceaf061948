-- Retention of the ops log: rows older than MEMORY_OPS_RETENTION_DAYS are deleted in batches
-- (`memory.store._ops_retention`), oldest id first, off the request path.
--
-- `memory_ops_expired` keeps, per agent, the highest id retention has deleted: a consumer whose
-- cursor is below it has missed events and is told so (`cursor_expired`), never given a gap.
-- No index is added to the log: a batch looks only at its head (the lowest ids, by the primary
-- key), where the oldest rows are.
create table stackbone_platform.memory_ops_expired (
    agent_id text primary key,
    through_id bigint not null
);
