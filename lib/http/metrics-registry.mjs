// The request metrics of `/-/metrics`, shared by the production server (server.mjs, which counts what the framework
// answers) and the application's bundles (lib/metrics.ts, which the protocol wrappers count through). Plain JavaScript:
// server.mjs loads it outside the bundles, so both copies of this module meet on globalThis, under registered symbols.
import { AsyncLocalStorage } from "node:async_hooks";
import promClient from "prom-client";

const metricsKey = Symbol.for("gitlab-compatible.metrics");
const wrapperScopeKey = Symbol.for("gitlab-compatible.observed-by-wrapper");

/** The registry and the two request metrics, created once per process whichever copy of this module asks first. */
export function requestMetrics() {
  return (globalThis[metricsKey] ??= createMetrics());
}

function createMetrics() {
  const registry = new promClient.Registry();
  promClient.collectDefaultMetrics({ register: registry });
  return {
    registry,
    httpRequests: new promClient.Counter({
      name: "http_requests_total",
      help: "HTTP requests answered, by route pattern and status",
      labelNames: ["method", "route", "status"],
      registers: [registry],
    }),
    httpRequestDuration: new promClient.Histogram({
      name: "http_request_duration_seconds",
      help: "Time to answer an HTTP request, by route pattern",
      labelNames: ["method", "route"],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
  };
}

/**
 * The request scope of the framework lane: server.mjs runs each request it hands to the framework in it, with a fresh
 * `{ observed: false }`, and the protocol wrappers set `observed` when they count the request themselves, so that the
 * server does not count it a second time.
 */
export function wrapperScope() {
  return (globalThis[wrapperScopeKey] ??= new AsyncLocalStorage());
}

/** Called by a wrapper that counted the request it answers; outside the framework lane's scope it does nothing. */
export function markObservedByWrapper() {
  const mark = wrapperScope().getStore();
  if (mark) mark.observed = true;
}
