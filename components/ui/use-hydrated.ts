"use client";

import { useSyncExternalStore } from "react";

const noSubscription = () => () => {};

/**
 * False in the server's HTML and while React takes it over, true after. A control whose action needs React (a click
 * handler, a controlled value) stays disabled until then: a click or choice made earlier would be lost.
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(noSubscription, () => true, () => false);
}
