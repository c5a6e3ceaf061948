-- migrate: no-transaction
-- built without blocking writes; a crash leaves it INVALID, and the next run builds it again
create index concurrently if not exists built_slow
    on stackbone_platform.built (stackbone_platform.slow_key(x));
