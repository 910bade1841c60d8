/**
 * The checklist in an issue's description (`- [ ] to do`, `* [x] done`), counted as GitLab's `Taskable` counts it for
 * `has_tasks`, `task_status` and `task_completion_status`. Pure.
 */
const taskItem = /^(?:>\s{0,4})*(?:\s*(?:[-+*]|\d+[.)]))+\s+(\[[xX]\]|\[\s\])(\s.+)/;

export interface TaskCompletion {
  count: number;
  completed_count: number;
}

export function taskCompletion(description: string | null): TaskCompletion {
  let count = 0;
  let completed = 0;
  for (const line of (description ?? "").split(/\r?\n/)) {
    const match = taskItem.exec(line);
    if (!match) continue;
    count += 1;
    if (/x/i.test(match[1]!)) completed += 1;
  }
  return { count, completed_count: completed };
}

/** "1 of 3 checklist items completed", as GitLab words it. */
export function taskStatus({ count, completed_count }: TaskCompletion): string {
  return `${completed_count} of ${count} ${count === 1 ? "checklist item" : "checklist items"} completed`;
}
