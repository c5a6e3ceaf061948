-- migrate: no-transaction
-- The operator listings of chat sessions and decisions, by customer and page (chat.paging).
--
-- `GET /api/chat/sessions/{agentId}?customer=...` keeps an agent's sessions of one `user_id`,
-- newest first; `GET /api/chat/decisions?customer=...` the decisions of one `user_id`. Each
-- page starts below the last row of the one before (a keyset cursor: the row's time and id),
-- so these indexes hold the filter and the order, and no page reads the rows before it.
-- Built concurrently: sessions are written by every text turn.
create index concurrently if not exists chat_sessions_agent_customer
    on stackbone_platform.chat_sessions (agent_id, user_id, updated_at desc);
create index concurrently if not exists chat_decisions_customer
    on stackbone_platform.chat_decisions (user_id, created_at desc)
    where user_id is not null;
