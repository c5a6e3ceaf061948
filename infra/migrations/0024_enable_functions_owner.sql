-- The enable functions (0004, 0011) work whoever runs them. An administrator (a superuser) often
-- runs them, since only a superuser can create `vector`; what they create was then owned by that
-- administrator, and the service's role could no longer write the fact vectors its own writes
-- fill through triggers. Now every table and function of the schema is handed to the schema's
-- owner (the role that ran the migrations) at the end of each enable call, which also repairs a
-- database enabled before this migration: an administrator runs the enable function once more.
-- A pgvector without HNSW (before 0.5) leaves search lexical (`vector_without_hnsw`).

create function stackbone_platform.hand_objects_to_schema_owner() returns void
    language plpgsql as $fn$
declare
    owner oid := (select nspowner from pg_namespace where nspname = 'stackbone_platform');
    item record;
begin
    for item in
        select format('table %s', c.oid::regclass) as object
            from pg_class c join pg_namespace n on n.oid = c.relnamespace
            where n.nspname = 'stackbone_platform' and c.relkind in ('r', 'p')
              and c.relowner <> owner
        union all
        select format('function %s', p.oid::regprocedure)
            from pg_proc p join pg_namespace n on n.oid = p.pronamespace
            where n.nspname = 'stackbone_platform' and p.proowner <> owner
    loop
        begin
            execute format('alter %s owner to %I', item.object, pg_get_userbyid(owner));
        exception when insufficient_privilege then
            -- only a superuser (or a member of both roles) can hand it over; health says so
            raise notice 'stackbone_platform: % stays owned by another role', item.object;
        end;
    end loop;
end
$fn$;

-- The objects themselves are still made by the functions of 0004 and 0011, renamed here; the
-- public names become wrappers that check HNSW first and hand over what was made.
alter function stackbone_platform.enable_semantic_search() rename to make_semantic_search;
alter function stackbone_platform.enable_document_vectors() rename to make_document_vectors;

create function stackbone_platform.vector_readiness() returns text
    language plpgsql as $fn$
begin
    begin
        create extension if not exists vector;
    exception when others then
        return 'vector_extension_missing';
    end;
    if not exists (select 1 from pg_am where amname = 'hnsw') then
        return 'vector_without_hnsw';
    end if;
    return 'ready';
end
$fn$;

create function stackbone_platform.enable_semantic_search() returns text
    language plpgsql as $fn$
declare
    readiness text := stackbone_platform.vector_readiness();
    outcome text;
begin
    if readiness <> 'ready' and to_regclass('stackbone_platform.memory_fact_vectors') is null then
        return readiness;
    end if;
    outcome := stackbone_platform.make_semantic_search();
    perform stackbone_platform.hand_objects_to_schema_owner();
    return outcome;
end
$fn$;

create function stackbone_platform.enable_document_vectors() returns text
    language plpgsql as $fn$
declare
    readiness text := stackbone_platform.vector_readiness();
    outcome text;
begin
    if readiness <> 'ready' and not exists (
            select 1 from information_schema.columns
            where table_schema = 'stackbone_platform' and table_name = 'doc_chunks'
              and column_name = 'embedding') then
        return readiness;
    end if;
    outcome := stackbone_platform.make_document_vectors();
    perform stackbone_platform.hand_objects_to_schema_owner();
    return outcome;
end
$fn$;
