-- Adds over HTTP (`POST /api/memory/customers/{agentId}/add`) with an `Idempotency-Key`: one
-- row per agent, person and key. A request claims its key by inserting the row (with the
-- digest of its body and no answer); it stores the answer it gave once the add committed, or
-- drops the row when the add failed, so a retry runs again. A retry with the same key and body
-- gets the stored answer (no second model call); another body under the key is a 409; a claim
-- with no answer yet is a request still running (409). Rows live 24 hours (a younger claim
-- without an answer is taken over after `stale_after`: its request died), are deleted by the
-- ops log's retention pass, and are erased with the person (`delete_all`).
create table stackbone_platform.memory_idempotency (
    agent_id text not null,
    user_id text not null,
    key text not null check (char_length(key) between 1 and 200),
    body_digest text not null,
    answer text,
    created_at timestamptz not null default now(),
    primary key (agent_id, user_id, key)
);
create index memory_idempotency_created_at on stackbone_platform.memory_idempotency (created_at);

-- Where a call record came from: `http` (the add route's default), or the channel its caller
-- named (`crm`); null for rows written before, read as unknown. The check is added NOT VALID:
-- it holds for every new row without scanning the old ones (all null) under the table's lock.
alter table stackbone_platform.memory_calls add column channel text;
alter table stackbone_platform.memory_calls
    add constraint memory_calls_channel_chars
    check (char_length(channel) between 1 and 40) not valid;
