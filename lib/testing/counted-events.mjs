// Bulk event history for suites and benchmarks. The database keeps each project's and author's event counts with a
// per-row trigger (two upserts per event): minutes for a hundred thousand events on a busy machine. These helpers
// insert history with that trigger off and add the counts once per group instead, in the same transaction, so the
// counts come out exactly as the trigger would have kept them (none for events without a project, as the trigger). The trigger that sets each event's audience still runs.

/** `insert` (an `INSERT … SELECT` into events, without RETURNING) with the counts of what it inserted added. */
export function countedEventsInsert(insert) {
  return `
    with inserted as (${insert} returning project_id, author_id, audience, action, coalesce(target_type, '') as target_type),
    by_project as (
      insert into project_event_counts (project_id, audience, action, target_type, event_count)
      select project_id, audience, action, target_type, count(*) from inserted where project_id is not null group by 1, 2, 3, 4
      on conflict (project_id, audience, action, target_type)
      do update set event_count = project_event_counts.event_count + excluded.event_count)
    insert into author_event_counts (author_id, project_id, audience, action, target_type, event_count)
    select author_id, project_id, audience, action, target_type, count(*) from inserted where project_id is not null group by 1, 2, 3, 4, 5
    on conflict (author_id, project_id, audience, action, target_type)
    do update set event_count = author_event_counts.event_count + excluded.event_count`;
}

/**
 * Runs `insert` with `params` through `run` (a statement runner of one transaction: `(text, params) => result`),
 * the per-row count trigger off meanwhile.
 */
export async function insertCountedEvents(run, insert, params) {
  await run("alter table events disable trigger events_count_insert");
  await run(countedEventsInsert(insert), params);
  await run("alter table events enable trigger events_count_insert");
}
