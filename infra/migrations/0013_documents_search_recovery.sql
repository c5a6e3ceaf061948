-- Lexical search over document chunks (hybrid retrieval, memory.documents), with the index facts
-- use (0004): the `simple` configuration over lower-cased, accent-folded text, so a product code
-- such as `SKU-88412-B` is a word of its own and is found exactly, whatever its embedding.
--
-- The text index lives in the chunk row (a generated column), so it is written and deleted with
-- the chunk in the ingest's one transaction. Chunks are few per collection at this stage; adding
-- the column rewrites the table once.
alter table stackbone_platform.doc_chunks add column search_text tsvector
    generated always as (
        to_tsvector('simple'::regconfig, stackbone_platform.search_fold(content))
    ) stored;
create index doc_chunks_search_text on stackbone_platform.doc_chunks using gin (search_text);

insert into stackbone_platform.capabilities (name) values ('documents.lexical');

-- Recovery of ingests cut short (a process stopped while a document was `pending`): an ingest
-- under way touches `updated_at` after every embedding batch, so a document pending and untouched
-- for longer than the bound was abandoned. A recovery pass claims it (bumping `updated_at` and
-- `ingest_attempts`, `for update skip locked`: one process takes it) and ingests it again from
-- its kept original; past the attempts allowed it is marked `failed` (`rag_ingest_interrupted`).
alter table stackbone_platform.doc_documents
    add column ingest_attempts integer not null default 0 check (ingest_attempts >= 0);
create index doc_documents_pending
    on stackbone_platform.doc_documents (updated_at) where status = 'pending';
