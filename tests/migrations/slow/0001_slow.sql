-- longer than the tiny pooled statement timeout of the test
create table stackbone_platform.slow_done (x int);
select pg_sleep(0.6);
