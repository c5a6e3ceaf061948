-- Provenance: where every fact version, call record and ops event came from.
--
-- One nullable `source jsonb` column per table; null is a row written before this migration,
-- read as an unknown source (channel "unknown"). Adding a nullable column without a default
-- rewrites nothing. The shape (`memory.contract._provenance.source_json`, every key present,
-- null when unknown):
--
--   {"channel": "voice" | "chat" | "agui" | "livekit-text" | "http" | "cli" | <named by an
--                add route caller, 1..40 chars>,
--    "call_id": <the call's run id: the LiveKit job id for voice>, "session_id": <chat
--    session id>, "turns": [<0-based positions in the conversation of the messages holding
--    the evidence>], "writer": {"agent": <agent id>, "job": <LiveKit job id>, "key": <the API
--    key's name>}, "model": <extraction model>, "evidence": <a quote found in the transcript
--    sent, never one the model invented>, "kind": <one of the extraction's kinds>,
--    "confidence": <0..1>}
--
-- - memory_facts.source: the current version's source; memory_fact_versions.source: a closed
--   version's (moved with it by an update or a delete).
-- - memory_calls.source: the write's source without evidence, turns, kind or confidence (the
--   call record's own `channel` column, 0029, holds the same channel).
-- - memory_ops.source: the write's source, as the event's `channel` and `session_id`; each
--   item of `ops` carries its own `source`, `kind`, `confidence`, `evidence` and a delete's
--   `reason`.
-- Every column lives in a row that names the person (agent_id, user_id), so `delete_all`
-- erases it with the row and an export of those rows carries it.
alter table stackbone_platform.memory_facts add column source jsonb;
alter table stackbone_platform.memory_fact_versions add column source jsonb;
alter table stackbone_platform.memory_calls add column source jsonb;
alter table stackbone_platform.memory_ops add column source jsonb;

-- The call's opening (0021) answers each recalled fact's and call's source as one more text
-- column (JSON; plain built-in types, as before: no type introspection on a job's
-- connection), so the recall before a greeting stays one statement. A new result column
-- needs the function dropped and created again; otherwise it is 0021's.
drop function stackbone_platform.call_opening(text, text, boolean, text[], text[], integer);
create function stackbone_platform.call_opening(
    p_agent text, p_capability text, p_code_read boolean, p_keys text[], p_users text[],
    p_calls integer
) returns table (
    kind integer, seq bigint, id text, body text, first_at timestamptz, second_at timestamptz,
    duration_seconds double precision, outcome text, run_id text, source text
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
        null::timestamptz, null::double precision, null::text, null::text, null::text;
    if not reads or not capable or who is null then
        return;
    end if;
    return query
        select 0, f.seq, f.id::text, f.content, f.created_at, f.updated_at,
            null::double precision, null::text, null::text, f.source::text
          from stackbone_platform.memory_facts f where f.agent_id = p_agent and f.user_id = who;
    return query
        select 1, c.seq, c.id::text, c.summary, c.started_at, c.created_at, c.duration_seconds,
            c.outcome, c.run_id, coalesce(c.source, jsonb_build_object('channel', c.channel))::text
          from stackbone_platform.memory_calls c where c.agent_id = p_agent and c.user_id = who
          order by c.started_at desc, c.seq desc limit p_calls;
end
$fn$;
