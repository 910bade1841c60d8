import "server-only";
import { markObservedByWrapper, requestMetrics } from "@/lib/http/metrics-registry.mjs";

export const metrics = requestMetrics();

/**
 * Counts a request answered by a protocol wrapper (API, OAuth, alert receivers, MCP) under the wrapper's route pattern;
 * the production server then leaves it out of what it counts for the framework (lib/http/framework-lane-metrics.mjs).
 */
export function observeRequest(method: string, route: string, status: number, startedAt: number): void {
  markObservedByWrapper();
  metrics.httpRequests.inc({ method, route, status: String(status) });
  metrics.httpRequestDuration.observe({ method, route }, (performance.now() - startedAt) / 1000);
}
