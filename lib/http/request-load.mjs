// How busy the production server is with requests, for the background work that must give way to them (the outbox
// worker): the number of requests under way, integrated over time. server.mjs counts every request on either lane;
// the application's bundles read the same count through globalThis, whichever copy of this module they hold.
import { performance } from "node:perf_hooks";
import { requestLoadKey } from "./lane-keys.mjs";

/** The count and its running integral (request·milliseconds), kept up to date at each change. */
function loadState() {
  return (globalThis[requestLoadKey] ??= { inFlight: 0, requestMs: 0, since: performance.now() });
}

function advance(state) {
  const now = performance.now();
  state.requestMs += state.inFlight * (now - state.since);
  state.since = now;
}

/** Counts a request from now until its response is finished or its connection closed. */
export function countRequest(response) {
  const state = loadState();
  advance(state);
  state.inFlight += 1;
  response.once("close", () => {
    advance(state);
    state.inFlight -= 1;
  });
}

/**
 * Request·milliseconds spent answering so far: over any interval, the difference of two readings divided by the
 * interval's length is the average number of requests under way. Zero where nothing counts requests (`next dev`,
 * tests).
 */
export function requestMsSoFar() {
  const state = globalThis[requestLoadKey];
  if (!state) return 0;
  advance(state);
  return state.requestMs;
}
