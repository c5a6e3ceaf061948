-- Per-agent time zone: an IANA name the extraction request dates the conversation in.
-- Null means "no override"; the name is validated against the IANA database before it is stored.
alter table stackbone_platform.memory_agent_overrides
    add column time_zone text check (char_length(time_zone) between 1 and 64);
