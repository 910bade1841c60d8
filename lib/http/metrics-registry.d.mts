import type { AsyncLocalStorage } from "node:async_hooks";
import type { Counter, Histogram, Registry } from "prom-client";

export interface RequestMetrics {
  registry: Registry;
  httpRequests: Counter<"method" | "route" | "status">;
  httpRequestDuration: Histogram<"method" | "route">;
}
export interface WrapperMark {
  observed: boolean;
}
export function requestMetrics(): RequestMetrics;
export function wrapperScope(): AsyncLocalStorage<WrapperMark>;
export function markObservedByWrapper(): void;
