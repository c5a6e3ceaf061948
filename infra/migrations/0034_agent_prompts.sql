-- An agent's conversation instruction (its prompt), written and published from the console as
-- the extraction guidance is: a draft runs only in the Playground; the published text is what
-- every new call and text turn reads; no row, or no published text, means the instructions the
-- agent declares in code. Who published (and saved, reset) is in the settings activity log,
-- never the text.
create table stackbone_platform.agent_prompts (
    agent_id text primary key,
    draft text check (char_length(draft) <= 100000),
    draft_saved_at timestamptz,
    published text check (char_length(published) between 1 and 100000),
    published_at timestamptz,
    published_by text,
    updated_at timestamptz not null default now()
);

-- The published prompt for a call's opening statement (`memory.store._opening` runs it in the
-- same statement as `call_opening`, before it): returned, and sent as a notice the moment it is
-- read, so a call whose recall is late still greets with the prompt it snapshotted. Null: the
-- code's instructions. Nothing here writes or keeps session state.
create function stackbone_platform.call_prompt(p_agent text) returns text
    language plpgsql as $fn$
declare
    published text;
begin
    select p.published into published
      from stackbone_platform.agent_prompts p where p.agent_id = p_agent;
    perform set_config('client_min_messages', 'notice', true);
    raise notice using message = 'call_opening.prompt',
        detail = jsonb_build_object('prompt', published)::text;
    return published;
end
$fn$;
