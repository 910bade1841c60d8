import "server-only";
import { Counter, Histogram, Registry, collectDefaultMetrics } from "prom-client";

interface Metrics {
  registry: Registry;
  httpRequests: Counter<"method" | "route" | "status">;
  httpRequestDuration: Histogram<"method" | "route">;
}

function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    httpRequests: new Counter({
      name: "http_requests_total",
      help: "HTTP requests answered, by route pattern and status",
      labelNames: ["method", "route", "status"],
      registers: [registry],
    }),
    httpRequestDuration: new Histogram({
      name: "http_request_duration_seconds",
      help: "Time to answer an HTTP request, by route pattern",
      labelNames: ["method", "route"],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
  };
}

// Route bundles may load this module more than once; the counters must not be registered twice.
const globalForMetrics = globalThis as unknown as { metrics?: Metrics };
export const metrics: Metrics = (globalForMetrics.metrics ??= createMetrics());

export function observeRequest(method: string, route: string, status: number, startedAt: number): void {
  metrics.httpRequests.inc({ method, route, status: String(status) });
  metrics.httpRequestDuration.observe({ method, route }, (performance.now() - startedAt) / 1000);
}
