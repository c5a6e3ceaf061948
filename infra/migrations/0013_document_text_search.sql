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
