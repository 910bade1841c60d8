// The hostile mix: ordinary API and page traffic runs twice for the same time, alone and then beside connections
// that send the worst inputs the service allows (and some it must refuse), while a light probe reads /-/liveness.
// What matters is what the worst cases do to everybody else: the ordinary traffic's p99 and liveness's p99, with and
// without them, from the same run.
import autocannon from "autocannon";
import { apiCall, format } from "../harness.mjs";

// The largest inputs the service accepts today; change them here when the limits change. Alert payloads larger or
// deeper than what the receiver actually accepts are refused, so the mix looks for the largest accepted size and
// depth (up to these) before it starts, and sends both those and some beyond them.
export const hostileLimits = {
  /** Characters of `a…a@` in an issue description and in a comment. */
  markdownCharacters: 1_000_000,
  alertPayloadBytes: 1_048_576,
  alertPayloadDepth: 90,
};

/** The targets judged on the hostile mix. */
export const hostileTargets = { livenessP99Ms: 100, ordinaryP99Ratio: 2 };

const hostileMarkdown = () => `${"a".repeat(hostileLimits.markdownCharacters - 1)}@`;

/** A generic alert of about `bytes` bytes whose nesting depth is `depth` (the payload object itself is level 1). */
export function alertPayloadOf(bytes, depth, fingerprint) {
  // Built inside out, so each level wraps the previous one.
  let details = "innermost";
  for (let level = depth - 1; level >= 1; level--) details = { level, next: details };
  const payload = { title: "Disk almost full", severity: "high", fingerprint, details, padding: "" };
  const overhead = Buffer.byteLength(JSON.stringify(payload));
  payload.padding = "x".repeat(Math.max(0, bytes - overhead));
  return JSON.stringify(payload);
}

async function sendAlert(integration, body) {
  const response = await fetch(integration.url, {
    method: "POST",
    headers: { Authorization: `Bearer ${integration.token}`, "Content-Type": "application/json" },
    body,
  });
  await response.arrayBuffer();
  return response.status;
}

const accepted = (status) => status >= 200 && status < 300;

/** The largest size and depth (up to `hostileLimits`) the receiver accepts, each found by bisection. */
async function largestAcceptedAlert(integration) {
  let probes = 0;
  const tries = (bytes, depth) => sendAlert(integration, alertPayloadOf(bytes, depth, `probe-${Date.now()}-${probes++}`)).then(accepted);
  const bisect = async (low, high, acceptedAt) => {
    // `low` is accepted; find the largest accepted value up to `high`.
    if (await acceptedAt(high)) return high;
    while (high - low > Math.max(1, Math.floor(low / 100))) {
      const middle = Math.floor((low + high) / 2);
      if (await acceptedAt(middle)) low = middle;
      else high = middle;
    }
    return low;
  };
  if (await tries(hostileLimits.alertPayloadBytes, hostileLimits.alertPayloadDepth)) {
    return { bytes: hostileLimits.alertPayloadBytes, depth: hostileLimits.alertPayloadDepth, probes };
  }
  const depth = await bisect(2, hostileLimits.alertPayloadDepth, (value) => tries(2_048, value));
  let bytes = await bisect(2_048, hostileLimits.alertPayloadBytes, (value) => tries(value, 2));
  // The two limits together may be refused where each alone is not: give up size until they pass together.
  while (bytes > 2_048 && !(await tries(bytes, depth))) bytes = Math.floor(bytes * 0.9);
  return { bytes, depth, probes };
}

/**
 * What the mix needs besides the seed: an issue holding the largest markdown (description and one comment) to view,
 * an issue to comment on, and the receiver's largest accepted payload.
 */
export async function prepareHostileMix(server, setup) {
  const { project, viewers, integrations } = setup;
  const asReporter = (method, pathname, body) => apiCall(server.base, viewers.reporter.token, method, pathname, body);
  const markdown = hostileMarkdown();
  const giant = await asReporter("POST", `/api/v4/projects/${project.id}/issues`, { title: "Largest markdown", description: markdown });
  await asReporter("POST", `/api/v4/projects/${project.id}/issues/${giant.iid}/notes`, { body: markdown });
  const sink = await asReporter("POST", `/api/v4/projects/${project.id}/issues`, { title: "Comments of the hostile mix" });
  const alertLimits = await largestAcceptedAlert(integrations[1]);
  return { giant, sink, alertLimits, markdown };
}

/** The hostile requests, one connection each. */
function hostileRequests(server, setup, prepared) {
  const { project, viewers, integrations, ids, layout } = setup;
  const { giant, sink, alertLimits, markdown } = prepared;
  const api = `${server.base}/api/v4`;
  const asReporter = { "PRIVATE-TOKEN": viewers.reporter.token, "Content-Type": "application/json" };
  const alertHeaders = { Authorization: `Bearer ${integrations[1].token}`, "Content-Type": "application/json" };
  const receiver = integrations[1].url;
  let counter = 0;
  const deepProjectsPage = Math.max(2, Math.ceil(layout.projects / 20) + 500);
  return [
    { kind: "issue with the largest markdown", url: `${api}/projects/${project.id}/issues`, method: "POST", headers: asReporter, body: () => JSON.stringify({ title: `Hostile ${counter++}`, description: markdown }) },
    { kind: "comment with the largest markdown", url: `${api}/projects/${project.id}/issues/${sink.iid}/notes`, method: "POST", headers: asReporter, body: () => JSON.stringify({ body: markdown }) },
    { kind: "page of the largest markdown issue", url: `${server.base}/${project.path_with_namespace}/-/issues/${giant.iid}`, headers: { Cookie: viewers.reporter.cookie } },
    {
      kind: `largest accepted alert (${Math.round(alertLimits.bytes / 1024)} KiB, depth ${alertLimits.depth})`,
      url: receiver,
      method: "POST",
      headers: alertHeaders,
      body: () => alertPayloadOf(alertLimits.bytes, alertLimits.depth, `hostile-${counter++}`),
    },
    { kind: "alert over the size limit", url: receiver, method: "POST", headers: alertHeaders, body: () => alertPayloadOf(alertLimits.bytes * 2 + 65_536, 2, `hostile-${counter++}`) },
    { kind: "alert over the depth limit", url: receiver, method: "POST", headers: alertHeaders, body: () => alertPayloadOf(4_096, alertLimits.depth + 20, `hostile-${counter++}`) },
    { kind: "anonymous project events, page 1", url: `${api}/projects/${project.id}/events` },
    { kind: "anonymous project events, page 2000", url: `${api}/projects/${project.id}/events?page=2000&per_page=20` },
    { kind: "anonymous project events, keyset mid-table", url: `${api}/projects/${project.id}/events?pagination=keyset&per_page=20&id_before=${ids.midEventId}` },
    { kind: `anonymous /projects, page ${deepProjectsPage}`, url: `${api}/projects?page=${deepProjectsPage}&per_page=20` },
    { kind: "anonymous /projects, page 2000", url: `${api}/projects?page=2000&per_page=20` },
  ];
}

/** The ordinary traffic, which every connection cycles through: API reads, an alert, an issue list and an issue page. */
function ordinaryRequests(server, setup) {
  const { project, viewers, integrations } = setup;
  const path = (url) => new URL(url).pathname + new URL(url).search;
  const owner = { "PRIVATE-TOKEN": viewers.owner.token };
  let counter = 0;
  return [
    { method: "GET", path: `/api/v4/projects/${project.id}`, headers: owner },
    { method: "GET", path: `/api/v4/projects/${project.id}/events`, headers: owner },
    { method: "GET", path: `/api/v4/projects/${project.id}/issues`, headers: { "PRIVATE-TOKEN": viewers.reporter.token } },
    {
      method: "POST",
      path: path(integrations[0].url),
      headers: { Authorization: `Bearer ${integrations[0].token}`, "Content-Type": "application/json" },
      setupRequest: (request) => ({ ...request, body: alertPayloadOf(1_200, 3, `ordinary-${Date.now()}-${counter++}`) }),
    },
    { method: "GET", path: `/${project.path_with_namespace}/-/issues/2`, headers: { Cookie: viewers.reporter.cookie } },
  ];
}

function runAutocannon(options) {
  return new Promise((resolve, reject) => autocannon(options, (error, result) => (error ? reject(error) : resolve(result))));
}

/**
 * Hostile connections, one per kind of request, each sending its kind again as soon as it is answered until the
 * deadline. A kind that gets no answer within `timeoutMs` is not sent again: the server may still be working on it,
 * and piling more of it up would only measure how long the server takes to recover after the phase.
 */
async function runHostile(requests, durationMs, timeoutMs) {
  const deadline = Date.now() + durationMs;
  const outcomes = new Map(requests.map((request) => [request.kind, { statuses: new Map(), times: [] }]));
  const connection = async (request) => {
    const outcome = outcomes.get(request.kind);
    while (Date.now() < deadline) {
      const startedAt = performance.now();
      let status;
      try {
        const response = await fetch(request.url, {
          method: request.method ?? "GET",
          headers: request.headers,
          body: request.body?.(),
          redirect: "manual",
          signal: AbortSignal.timeout(timeoutMs),
        });
        await response.arrayBuffer();
        status = String(response.status);
      } catch (error) {
        status = error?.name === "TimeoutError" ? "timeout" : "error";
      }
      outcome.times.push(performance.now() - startedAt);
      outcome.statuses.set(status, (outcome.statuses.get(status) ?? 0) + 1);
      if (status === "timeout") break;
    }
  };
  await Promise.all(requests.map(connection));
  return outcomes;
}

/** One phase: the ordinary traffic and the liveness probe for `duration` s, with or without hostile connections. */
async function phase(server, setup, settings, prepared) {
  const base = new URL(server.base);
  const ordinary = runAutocannon({
    url: server.base,
    connections: settings.ordinaryConnections,
    duration: settings.duration,
    timeout: 30,
    requests: ordinaryRequests(server, setup),
  });
  // A liveness request unanswered after a second counts as a timeout (non-2xx): a stalled server shows there, where
  // latency percentiles would only hold the requests that got through.
  const liveness = runAutocannon({ url: `${base.origin}/-/liveness`, connections: settings.livenessConnections, duration: settings.duration, timeout: 1 });
  const hostile = prepared ? runHostile(hostileRequests(server, setup, prepared), settings.duration * 1000, settings.hostileTimeoutMs) : null;
  const [ordinaryResult, livenessResult, hostileOutcomes] = await Promise.all([ordinary, liveness, hostile]);
  const summary = (result) => ({
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx + result.errors + result.timeouts,
  });
  return { ordinary: summary(ordinaryResult), liveness: summary(livenessResult), hostile: hostileOutcomes };
}

/**
 * Runs the mix; returns its report lines and verdicts. `afterPhase` waits for the server to have finished what a phase
 * sent (and resolves to whether it did).
 */
export async function runHostileMix(server, setup, settings, { log, afterPhase }) {
  log("  preparing the hostile mix (largest markdown issue, the receiver's largest accepted payload)…");
  let prepared;
  try {
    prepared = await prepareHostileMix(server, setup);
  } catch (error) {
    // Reported as measured: a service that cannot take the largest inputs fails the targets rather than the run.
    const reason = `the hostile mix could not be prepared: ${error.message.slice(0, 300)}`;
    log(`    ${reason}`);
    return { lines: [reason], verdicts: [["hostile mix prepared (largest markdown issue and comment, largest accepted alert)", false, reason]] };
  }
  log(`    largest accepted alert: ${prepared.alertLimits.bytes} bytes, depth ${prepared.alertLimits.depth} (${prepared.alertLimits.probes} probes)`);
  // A short unmeasured run first, so both phases find warm code paths.
  await phase(server, setup, { ...settings, duration: settings.warmUp }, null);
  log("  ordinary traffic alone…");
  const calm = await phase(server, setup, settings, null);
  await afterPhase();
  log("  ordinary traffic beside the hostile connections…");
  const hostile = await phase(server, setup, settings, prepared);
  const recoveryStartedAt = performance.now();
  const recovered = await afterPhase();
  const recovery = `${recovered ? "the server answered readiness within 100 ms again" : "the server was still busy"} ${format((performance.now() - recoveryStartedAt) / 1000, 1)} s after the phase`;
  log(`    ${recovery}`);

  const row = (name, alone, beside) =>
    `| ${name} | ${format(alone.rps)} | ${format(alone.p50)} | ${format(alone.p99)} | ${alone.non2xx} | ${format(beside.rps)} | ${format(beside.p50)} | ${format(beside.p99)} | ${beside.non2xx} |`;
  const hostileRows = [...hostile.hostile].map(([kind, { statuses, times }]) => {
    const sorted = [...times].sort((a, b) => a - b);
    const answers = [...statuses].map(([status, count]) => `${count}× ${status}`).join(", ");
    return `| ${kind} | ${times.length} | ${answers || "–"} | ${format(sorted[Math.floor(sorted.length / 2)])} | ${format(sorted.at(-1))} |`;
  });
  const lines = [
    `| traffic | alone: req/s | p50 ms | p99 ms | non-2xx | beside the hostile mix: req/s | p50 ms | p99 ms | non-2xx |`,
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    row(`ordinary mix (${settings.ordinaryConnections} connections)`, calm.ordinary, hostile.ordinary),
    row(`liveness (${settings.livenessConnections} connections)`, calm.liveness, hostile.liveness),
    "",
    `Hostile requests (one connection each, sending again as soon as answered; a kind unanswered after ${settings.hostileTimeoutMs / 1000} s is not sent again):`,
    "",
    "| hostile request | sent | answers | p50 ms | slowest ms |",
    "|---|---:|---|---:|---:|",
    ...hostileRows,
    "",
    `After the hostile phase ${recovery}.`,
  ];
  const ratio = hostile.ordinary.p99 / Math.max(calm.ordinary.p99, 1);
  const verdicts = [
    [
      `hostile mix: liveness p99 ≤ ${hostileTargets.livenessP99Ms} ms beside it, every request answered within 1 s`,
      hostile.liveness.p99 <= hostileTargets.livenessP99Ms && hostile.liveness.non2xx === 0,
      `${format(hostile.liveness.p99)} ms, ${hostile.liveness.non2xx} unanswered or non-2xx; alone ${format(calm.liveness.p99)} ms`,
    ],
    [
      `hostile mix: the ordinary traffic's p99 at most ${hostileTargets.ordinaryP99Ratio}× its p99 alone`,
      ratio <= hostileTargets.ordinaryP99Ratio,
      `${format(hostile.ordinary.p99)} ms against ${format(calm.ordinary.p99)} ms = ${format(ratio, 1)}×`,
    ],
  ];
  return { lines, verdicts, alertLimits: prepared.alertLimits };
}
