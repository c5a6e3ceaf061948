create table stackbone_platform.built (x int not null);
-- an index key that takes 2 ms to compute: the build below lasts seconds, long enough to kill
create function stackbone_platform.slow_key(x int) returns int
    language plpgsql immutable as $$ begin perform pg_sleep(0.002); return x; end $$;
insert into stackbone_platform.built select generate_series(1, 1000);
