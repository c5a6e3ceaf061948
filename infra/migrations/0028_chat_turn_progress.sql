-- A text turn's progress, kept on its session while the turn has not been recorded
-- (chat.journal): the digest of the request it answers, what the client sent, and the turn so
-- far (its thread additions and run detail, and, once the model answered, the whole answer).
-- It is written after each tool call that acts (an agent's own tool, a memory save) and by a
-- record that reached the database after its client was told the turn failed. The next turn
-- on the session with the same request goes on from it (never running a tool call again); a
-- turn with another request first records it as a cut turn, so the model still sees what ran.
-- `request_digest` on a recorded turn names the request it answered.
alter table stackbone_platform.chat_sessions add column progress jsonb;
alter table stackbone_platform.chat_turns add column request_digest text;
