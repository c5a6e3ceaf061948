-- The registry lists which of an agent's tools are held (`interrupt_on`: a call waits for a
-- person's decision) and the decisions each allows, so the console and the listing show it for
-- agents this process cannot import. A JSON array, in the definition's order:
-- [{"tool": "issue_refund", "allowed": ["approve", "edit", "reject"]}, ...].
alter table stackbone_platform.agent_registry
    add column held jsonb not null default '[]'::jsonb;
