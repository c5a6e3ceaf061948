-- The agent's time zone in a call's journal header, so a sweeper's `job_lost` save dates the
-- conversation as the job's own save would (migration 0008 added the setting). Null for
-- journals written before this column, and for agents without a time zone.
alter table stackbone_platform.call_journals add column time_zone text;
