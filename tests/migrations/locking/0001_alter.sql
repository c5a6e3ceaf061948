-- needs an ACCESS EXCLUSIVE lock on a table the test keeps busy
alter table public.busy add column y int;
