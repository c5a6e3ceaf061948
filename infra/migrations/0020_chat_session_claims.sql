-- Chat sessions: a fencing token for each claim, and the identities a session was given.
--
-- `claim` counts the claims a session has had. A turn holds its session with a short lease it
-- renews while it runs; a turn whose lease lapsed (its process died, or the database did not
-- answer its renewal) is taken over by the next claim, which bumps `claim`. Every write of a
-- turn names the claim it holds, so a late write of a superseded turn changes nothing.
--
-- `identities` is the map the session's address was derived from, shown to operators, and
-- `customers` its values: erasing one person's memory deletes every session of the agent that
-- named that person under any identity (GIN index for the containment test).
alter table stackbone_platform.chat_sessions
    add column claim bigint not null default 0,
    add column identities jsonb not null default '{}'::jsonb,
    add column customers text[] not null default '{}';
update stackbone_platform.chat_sessions
   set customers = array[user_id]
 where user_id is not null;
create index chat_sessions_customers on stackbone_platform.chat_sessions using gin (customers);
