-- A call's opening in one statement (one round trip once the caller is on the line): the
-- agent's stored overrides and identity binding, the schema and capability check, the choice
-- of the caller's identity under the bound key among the ones the caller offers (decided by
-- the worker's pure identity rules, one user id per key), and, when reading is on (the
-- override, else the code's declaration, else off), that person's facts and newest calls.
--
-- The settings are sent twice: as a notice the moment they are read (so a call whose recall
-- is late still knows its settings and names the late step truthfully: `lifecycle.opening`),
-- and as the first row. Rows are plain built-in types, as recall's are (no type introspection
-- on a job's connection). Statements inside the function take their locks when they run, so
-- a slow recall does not hold the settings back. Nothing here writes or keeps session state
-- (client_min_messages is set for this transaction only), so it runs behind a
-- transaction-mode pooler as it does directly.
create function stackbone_platform.call_opening(
    p_agent text, p_capability text, p_code_read boolean, p_keys text[], p_users text[],
    p_calls integer
) returns table (
    kind integer, seq bigint, id text, body text, first_at timestamptz, second_at timestamptz,
    duration_seconds double precision, outcome text, run_id text
) language plpgsql as $fn$
declare
    settings jsonb;
    reads boolean;
    capable boolean;
    who text;
begin
    select jsonb_build_object(
            'read', o.read, 'save', o.save, 'instructions', o.instructions,
            'remember', o.remember, 'forget', o.forget, 'time_zone', o.time_zone,
            'identity_key', b.identity_key, 'source', b.source, 'fixed_at', b.fixed_at,
            'schema_ok', to_regclass('stackbone_platform.memory_fact_versions') is not null,
            'capability_ok', exists(
                select 1 from stackbone_platform.capabilities where name = p_capability)),
        coalesce(o.read, p_code_read, false),
        b.identity_key
      into settings, reads, who
      from (select 1) as one
      left join stackbone_platform.memory_agent_overrides o on o.agent_id = p_agent
      left join stackbone_platform.memory_identity_bindings b on b.agent_id = p_agent;
    perform set_config('client_min_messages', 'notice', true);
    raise notice using message = 'call_opening.settings', detail = settings::text;
    capable := (settings ->> 'schema_ok')::boolean and (settings ->> 'capability_ok')::boolean;
    who := (select u.user_id from unnest(p_keys, p_users) as u(key, user_id)
            where u.key = who limit 1);
    return query select -1, null::bigint, who, settings::text, null::timestamptz,
        null::timestamptz, null::double precision, null::text, null::text;
    if not reads or not capable or who is null then
        return;
    end if;
    return query
        select 0, f.seq, f.id::text, f.content, f.created_at, f.updated_at,
            null::double precision, null::text, null::text
          from stackbone_platform.memory_facts f where f.agent_id = p_agent and f.user_id = who;
    return query
        select 1, c.seq, c.id::text, c.summary, c.started_at, c.created_at, c.duration_seconds,
            c.outcome, c.run_id
          from stackbone_platform.memory_calls c where c.agent_id = p_agent and c.user_id = who
          order by c.started_at desc, c.seq desc limit p_calls;
end
$fn$;
