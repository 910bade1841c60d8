export function countedEventsInsert(insert: string): string;
export function insertCountedEvents(
  run: (text: string, params?: unknown[]) => Promise<unknown>,
  insert: string,
  params: unknown[],
): Promise<void>;
