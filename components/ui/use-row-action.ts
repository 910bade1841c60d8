import { useRouter } from "next/navigation";
import { useState } from "react";
import type { ActionResult } from "@/lib/forms/action-result";

/**
 * The state of a server action run for one row of a list (Revoke, Remove, Delete…): which row is pending, so its
 * button is disabled, and why the last run failed, for a Notice above the list.
 */
export function useRowAction() {
  const router = useRouter();
  const [pendingId, setPendingId] = useState<number | null>(null);
  const [failure, setFailure] = useState<string | null>(null);

  /**
   * Calls `action(id)`. On success the page is refreshed so the server renders the list anew, unless the caller
   * shows what the action answered instead (`refresh: false`). Resolves with the result for such callers.
   */
  async function run<T>(id: number, action: (id: number) => Promise<ActionResult<T>>, { refresh = true } = {}) {
    setFailure(null);
    setPendingId(id);
    const result = await action(id);
    setPendingId(null);
    if (!result.ok) setFailure(result.message);
    else if (refresh) router.refresh();
    return result;
  }

  return { pendingId, failure, run };
}
