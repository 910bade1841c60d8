/** The rows of a hand-written statement (`execute`): postgres-js answers with an array, a `{ rows }` result otherwise. */
export function statementRows<Row>(result: unknown): Row[] {
  return Array.isArray(result) ? (result as Row[]) : (result as { rows: Row[] }).rows;
}
