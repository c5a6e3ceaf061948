-- Search over facts: full-text (always) and semantic (when the server has pgvector).

-- Language-neutral folding: lower case, then accents dropped (NFKD, combining marks removed),
-- so "Teléfono", "telefono" and "TELÉFONO" are one word in Spanish, English and names alike.
-- (The `unaccent` extension would do this, but it is not shipped by every server.)
create function stackbone_platform.search_fold(value text) returns text
    language sql immutable strict parallel safe
    as $$ select regexp_replace(normalize(lower(value), NFKD), '[\u0300-\u036f]', '', 'g') $$;

-- The text index lives in the fact row: a fact's update or erasure updates or erases it too.
alter table stackbone_platform.memory_facts add column search_text tsvector
    generated always as (
        to_tsvector('simple'::regconfig, stackbone_platform.search_fold(content))
    ) stored;
create index memory_facts_search_text on stackbone_platform.memory_facts using gin (search_text);

insert into stackbone_platform.capabilities (name) values ('memory.search');

-- Semantic search needs pgvector. Without it (or without the right to create it) the migration
-- still applies and search stays lexical; once `vector` can be created, an administrator runs
-- `select stackbone_platform.enable_semantic_search()` (idempotent).
create function stackbone_platform.enable_semantic_search() returns text
    language plpgsql as $fn$
declare
    iterative text := '';
begin
    if to_regclass('stackbone_platform.memory_fact_vectors') is not null then
        return 'enabled';
    end if;
    begin
        create extension if not exists vector;
    exception when others then
        return 'vector_extension_missing';
    end;
    -- pgvector before 0.5 has no HNSW index: search stays lexical (see docs/deployment.md)
    if not exists (select 1 from pg_am where amname = 'hnsw') then
        return 'vector_without_hnsw';
    end if;
    -- One row per fact, created and reset by triggers on memory_facts and erased with the fact
    -- (cascade), so no vector outlives its text. `embedding` is null until a background pass
    -- fills it; `content_md5` is the content it must be computed from.
    execute $sql$
        create table stackbone_platform.memory_fact_vectors (
            fact_id uuid primary key
                references stackbone_platform.memory_facts (id) on delete cascade,
            agent_id text not null,
            user_id text not null,
            content_md5 text not null,
            model text,
            embedding vector(512),
            check ((model is null) = (embedding is null))
        )
    $sql$;
    create index memory_fact_vectors_scope
        on stackbone_platform.memory_fact_vectors (agent_id, user_id);
    create index memory_fact_vectors_pending
        on stackbone_platform.memory_fact_vectors (fact_id) where embedding is null;
    create index memory_fact_vectors_model
        on stackbone_platform.memory_fact_vectors (model) where embedding is not null;
    execute $sql$
        create index memory_fact_vectors_nearest on stackbone_platform.memory_fact_vectors
            using hnsw (embedding vector_cosine_ops)
    $sql$;
    insert into stackbone_platform.memory_fact_vectors (fact_id, agent_id, user_id, content_md5)
        select id, agent_id, user_id, md5(content) from stackbone_platform.memory_facts;

    execute $sql$
        create function stackbone_platform.memory_fact_vectors_added() returns trigger
            language plpgsql as $$
        begin
            insert into stackbone_platform.memory_fact_vectors
                (fact_id, agent_id, user_id, content_md5)
                select id, agent_id, user_id, md5(content) from added;
            return null;
        end $$
    $sql$;
    -- a changed content drops its vector at once, in the writer's transaction
    execute $sql$
        create function stackbone_platform.memory_fact_vectors_changed() returns trigger
            language plpgsql as $$
        begin
            update stackbone_platform.memory_fact_vectors v
                set content_md5 = md5(n.content), model = null, embedding = null
                from changed_new n join changed_old o on o.id = n.id
                where v.fact_id = n.id and n.content is distinct from o.content;
            return null;
        end $$
    $sql$;
    create trigger memory_fact_vectors_added after insert on stackbone_platform.memory_facts
        referencing new table as added
        for each statement execute function stackbone_platform.memory_fact_vectors_added();
    create trigger memory_fact_vectors_changed after update on stackbone_platform.memory_facts
        referencing old table as changed_old new table as changed_new
        for each statement execute function stackbone_platform.memory_fact_vectors_changed();

    -- The nearest facts of one agent. An HNSW scan filtered by agent keeps scanning until it has
    -- `n` rows (iterative scan, pgvector 0.8); relaxed order is sorted again here. The join to
    -- the facts is inside: outside, the planner would expect 1000 rows and hash every fact.
    -- (pgvector before 0.8 has no iterative scan: the index is then filtered after the fact,
    -- and an agent with a small share of all vectors may get fewer than `n` rows.)
    if (select string_to_array(extversion, '.')::int[] from pg_extension
            where extname = 'vector') >= array[0, 8] then
        iterative := $set$set hnsw.iterative_scan = 'relaxed_order'$set$;
    end if;
    execute format($sql$
        create function stackbone_platform.nearest_facts(
            p_agent text, p_query vector, p_model text, p_limit integer)
        returns table (user_id text, fact_id text, content text, distance double precision)
        language sql stable rows 50
        %s
        as $$
            with candidates as materialized (
                select v.user_id, v.fact_id, v.embedding <=> p_query as distance
                from stackbone_platform.memory_fact_vectors v
                where v.agent_id = p_agent and v.model = p_model
                order by v.embedding <=> p_query
                limit p_limit)
            select c.user_id, c.fact_id::text, f.content, c.distance
            from candidates c join stackbone_platform.memory_facts f on f.id = c.fact_id
            order by c.distance, c.fact_id
        $$
    $sql$, iterative);
    insert into stackbone_platform.capabilities (name) values ('memory.semantic')
        on conflict do nothing;
    return 'enabled';
end
$fn$;

select stackbone_platform.enable_semantic_search();
