-- A fact a model wrote may hold a NUL or a lone surrogate, which Postgres text cannot hold: the
-- store keeps each as an escape, U+10FFFF and a tag (`0`, `u` and four hex digits, or `e`; see
-- memory/store/_stored_text.py). The text index read the tag as the start of the next word
-- ("part<NUL>number" indexed `0number`, so a search for "number" missed it). Folding now turns
-- each escape into a space first: the character the model wrote separates words, as any control
-- character does. Rows written before hold no escape (such answers were refused), so no stored
-- index value changes meaning; the function keeps its signature, so the generated columns of
-- 0004 and 0013 and the language guess of 0023 use it as they are.
create or replace function stackbone_platform.search_fold(value text) returns text
    language sql immutable strict parallel safe
    as $$ select regexp_replace(
        normalize(lower(regexp_replace(value, '\U0010FFFF(0|u[0-9a-f]{4}|e)', ' ', 'g')), NFKD),
        '[\u0300-\u036f]', '', 'g') $$;
