-- Per-agent extraction briefs: what is worth remembering and what must never be stored.
-- A null column means "no override"; an empty array is an override with no items.
alter table stackbone_platform.memory_agent_overrides
    add column remember text[] check (cardinality(remember) <= 20),
    add column forget text[] check (cardinality(forget) <= 20);
