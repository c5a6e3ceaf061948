-- The language of a document collection, for ranking by text (memory.documents, hybrid ranking):
-- a query's stop words in that language ("what", "how", "the") are left out of its text list, so
-- a question word found in one chunk of a small collection (a title page) no longer picks it.
--
-- The language is the name of a Postgres Snowball dictionary without its `_stem` ending
-- (`english`, `spanish`, ...), found from the text: the language whose stop list holds the most
-- distinct words of it, provided it holds at least 5 (a price list or a code listing has none:
-- the collection's language stays unknown, null, and no word is left out). A collection takes the
-- language of its first document that shows one; nothing here changes the chunks or their index
-- (the `simple` text index of 0013 keeps every word: only the query's words are filtered).
alter table stackbone_platform.doc_collections add column language text;

create function stackbone_platform.text_language(p_text text) returns text
    language sql stable parallel safe as $$
        select replace(d.dictname::text, '_stem', '')
        from unnest(tsvector_to_array(to_tsvector('simple'::regconfig,
                 stackbone_platform.search_fold(left(p_text, 20000))))) as w(word)
        cross join pg_catalog.pg_ts_dict d
        join pg_catalog.pg_ts_template t on t.oid = d.dicttemplate
        where t.tmplname = 'snowball' and d.dictnamespace = 'pg_catalog'::regnamespace
            and ts_lexize(d.oid::regdictionary, w.word) = '{}'::text[]
        group by d.dictname
        having count(*) >= 5
        order by count(*) desc, d.dictname
        limit 1
    $$;

-- collections made before this migration: from the start of their chunks
update stackbone_platform.doc_collections c
    set language = stackbone_platform.text_language((
        select string_agg(s.content, ' ') from (
            select k.content from stackbone_platform.doc_chunks k
            where k.collection_id = c.id limit 20) s));
