-- Document collections: documents kept whole, cut into chunks, each chunk embedded (memory.documents).
--
-- A collection is a namespace shared by every agent of the deployment, and records the one
-- embedding model (and its dimension) its chunks were made with. A document row exists from the
-- moment an ingest is accepted (`pending`) and ends `ready` or `failed` with a code. Chunks only
-- exist for a `ready` document: they are written in the transaction that makes it ready, which
-- also removes the older documents of the same source. Deleting a document cascades to its
-- original and its chunks (and their vectors, which live in the chunk rows).
create table stackbone_platform.doc_collections (
    id bigint generated always as identity primary key,
    namespace text not null unique,
    embedding_model text not null,
    dimensions integer not null check (dimensions > 0),
    created_at timestamptz not null default now()
);

create table stackbone_platform.doc_documents (
    id uuid primary key default gen_random_uuid(),
    collection_id bigint not null
        references stackbone_platform.doc_collections (id) on delete cascade,
    source text not null,
    title text not null,
    content_type text not null,
    bytes integer not null check (bytes >= 0),
    model text not null,
    status text not null default 'pending' check (status in ('pending', 'ready', 'failed')),
    error_code text,
    chunk_count integer not null default 0,
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now(),
    check ((status = 'failed') = (error_code is not null))
);
-- one ready document per source: a re-ingest replaces it in one transaction
create unique index doc_documents_ready_source
    on stackbone_platform.doc_documents (collection_id, source) where status = 'ready';
create index doc_documents_listing
    on stackbone_platform.doc_documents (collection_id, created_at, id);

-- the original bytes, for download; apart from the document row so listings never read them
create table stackbone_platform.doc_originals (
    document_id uuid primary key
        references stackbone_platform.doc_documents (id) on delete cascade,
    body bytea not null
);

create table stackbone_platform.doc_chunks (
    document_id uuid not null
        references stackbone_platform.doc_documents (id) on delete cascade,
    seq integer not null check (seq >= 0),
    collection_id bigint not null,
    content text not null,
    primary key (document_id, seq)
);

-- Vectors need pgvector, as in migration 0004: without it the tables above still exist, and
-- ingest and retrieve answer `rag_unavailable` until an administrator runs
-- `select stackbone_platform.enable_document_vectors()` (idempotent) once `vector` can be created.
create function stackbone_platform.enable_document_vectors() returns text
    language plpgsql as $fn$
declare
    iterative text := '';
begin
    if exists (select 1 from information_schema.columns
               where table_schema = 'stackbone_platform' and table_name = 'doc_chunks'
                 and column_name = 'embedding') then
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
    -- no chunk can exist yet (ingest is refused without vectors), so the column can be required
    execute 'alter table stackbone_platform.doc_chunks add column embedding vector(512) not null';
    execute $sql$
        create index doc_chunks_nearest on stackbone_platform.doc_chunks
            using hnsw (embedding vector_cosine_ops)
    $sql$;
    -- No index on collection_id, and no sequential scan inside `nearest_chunks`: otherwise the
    -- planner reads the whole collection and sorts it (exact, but linear in its size) where
    -- the HNSW index answers in about the same time at any size.
    -- The nearest chunks of one collection. As for facts (0004), an HNSW scan filtered by
    -- collection keeps scanning until it has `n` rows where pgvector >= 0.8 allows it.
    if (select string_to_array(extversion, '.')::int[] from pg_extension
            where extname = 'vector') >= array[0, 8] then
        iterative := $set$set hnsw.iterative_scan = 'relaxed_order'$set$;
    end if;
    execute format($sql$
        create function stackbone_platform.nearest_chunks(
            p_collection bigint, p_query vector, p_limit integer)
        returns table (document_id uuid, seq integer, content text, distance double precision)
        language sql stable rows 20
        set enable_seqscan = off
        %s
        as $$
            with candidates as materialized (
                select c.document_id, c.seq, c.content, c.embedding <=> p_query as distance
                from stackbone_platform.doc_chunks c
                where c.collection_id = p_collection
                order by c.embedding <=> p_query
                limit p_limit)
            select * from candidates order by distance, document_id, seq
        $$
    $sql$, iterative);
    insert into stackbone_platform.capabilities (name) values ('documents.vectors')
        on conflict do nothing;
    return 'enabled';
end
$fn$;

insert into stackbone_platform.capabilities (name) values ('documents');

select stackbone_platform.enable_document_vectors();
