-- Chat sessions: text conversations the server keeps behind a session header (chat.sessions).
--
-- The id is derived from the kind, the agent, the client's key and the customer scope, so the
-- same header always reaches the same row; it is never returned on a chat wire. A turn claims
-- its session with a lease (busy_until) so a second turn at once is refused instead of
-- interleaved, and a crashed turn's claim expires by itself. Erasing a person's memory does not
-- touch sessions: deleting one is its own operation.
create table stackbone_platform.chat_sessions (
    id text primary key,
    kind text not null check (kind in ('session', 'conversation')),
    agent_id text not null,
    session_key text not null,
    user_id text,
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now(),
    turns integer not null default 0,
    busy_until timestamptz
);
create index chat_sessions_agent on stackbone_platform.chat_sessions (agent_id, updated_at desc);

create table stackbone_platform.chat_turns (
    session_id text not null
        references stackbone_platform.chat_sessions (id) on delete cascade,
    position integer not null check (position >= 0),
    messages jsonb not null,
    user_message text not null,
    reply text not null,
    prompt_tokens integer not null,
    completion_tokens integer not null,
    duration_ms double precision not null,
    created_at timestamptz not null default now(),
    primary key (session_id, position)
);
