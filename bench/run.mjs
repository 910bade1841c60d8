// Benchmark harness: builds and starts the service on PostgreSQL, seeds what each scenario needs, drives load with
// autocannon and prints one table. Every figure is reported as a ratio to references measured in the same run
// (`/-/liveness`, node-oidc-provider, Prometheus Alertmanager), because absolute numbers on shared machines are noise.
//
//   npm run bench                 full run (≈ 6–9 minutes on 2 cores)
//   npm run bench -- --quick      seconds per scenario and small data, to prove the harness works
//   options: --skip-build  --only=<part of a scenario's name,...>  --port=<n>
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import postgres from "postgres";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const benchStartedAt = performance.now();
const require = createRequire(import.meta.url);
const args = new Map(
  process.argv.slice(2).map((arg) => {
    const [name, value] = arg.replace(/^--/, "").split("=");
    return [name, value ?? true];
  }),
);
const quick = args.has("quick");
// Scenario names contain commas, so `--only` takes parts of names: `--only=project events,storm`.
const onlyParts = typeof args.get("only") === "string" ? args.get("only").split(",") : null;
const selected = (name) => !onlyParts || onlyParts.some((part) => name.includes(part));
const port = Number(args.get("port") ?? 3900);
const base = `http://localhost:${port}`;

const profile = quick
  ? { duration: 2, warmUp: 1, connections: 8, events: 20_000, expiredEvents: 20_000, storm: { alerts: 2_000, fingerprints: 20 }, codes: 300 }
  : { duration: 12, warmUp: 3, connections: 32, events: 1_000_000, expiredEvents: 500_000, storm: { alerts: 20_000, fingerprints: 200 }, codes: 6_000 };

const rootPassword = "bench-root-password";
const rootToken = "bench-root-token-0123456789abcdef";

// ---------------------------------------------------------------------------------------------------------------
// The database and the server

const serverUrl = process.env.DATABASE_URL;
if (!serverUrl || !/^postgres(ql)?:\/\//.test(serverUrl)) {
  console.error(
    "The benchmark runs the service on PostgreSQL: set DATABASE_URL to a server it may create a database on,\n" +
      "e.g. DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench",
  );
  process.exit(2);
}
const databaseName = `bench_${Date.now()}`;
const databaseUrl = (() => {
  const url = new URL(serverUrl);
  url.pathname = `/${databaseName}`;
  return url.toString();
})();
const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
await admin.unsafe(`create database "${databaseName}"`);

const children = [];
async function cleanUp() {
  // Each child leads its own process group, so the server started through npm goes down with its shell and npm.
  for (const child of children) {
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {
      // Already gone.
    }
  }
  await sleep(300);
  await admin.unsafe(`drop database if exists "${databaseName}" with (force)`).catch(() => {});
  await admin.end();
}
process.on("SIGINT", () => cleanUp().then(() => process.exit(130)));
process.on("uncaughtException", (error) => {
  console.error(error);
  cleanUp().finally(() => process.exit(1));
});
process.on("unhandledRejection", (error) => {
  console.error(error);
  cleanUp().finally(() => process.exit(1));
});

for (const taken of [port, port + 1, port + 2]) {
  const busy = await fetch(`http://localhost:${taken}/`).then(
    () => true,
    () => false,
  );
  if (busy) {
    console.error(`Port ${taken} is in use; pass --port=<n> to run the benchmark on ports n, n+1 and n+2.`);
    await cleanUp();
    process.exit(2);
  }
}

if (!args.has("skip-build") || !existsSync(path.join(root, ".next", "BUILD_ID"))) {
  console.log("Building the service (next build)…");
  const build = spawnSync(process.execPath, [require.resolve("next/dist/bin/next"), "build"], { cwd: root, stdio: "inherit" });
  if (build.status !== 0) throw new Error("next build failed");
}

function startProcess(command, commandArgs, env, readyCheck) {
  const child = spawn(command, commandArgs, { cwd: root, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"], detached: true });
  children.push(child);
  let output = "";
  child.stdout.on("data", (chunk) => (output = (output + chunk).slice(-20_000)));
  child.stderr.on("data", (chunk) => (output = (output + chunk).slice(-20_000)));
  return { child, output: () => output, ready: readyCheck };
}

async function waitFor(check, what, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await sleep(250);
  }
  throw new Error(`${what} did not become ready in ${timeoutMs / 1000} s`);
}

console.log(`Starting the service on PostgreSQL (database ${databaseName})…`);
// `npm start`, as operators run it, so the benchmark measures the runtime settings its script gives Node.js.
const server = startProcess(
  "npm",
  ["start", "--", "-p", String(port), "--keepAliveTimeout", "70000"],
  {
    NODE_ENV: "production",
    DATABASE_URL: databaseUrl,
    EXTERNAL_URL: base,
    INITIAL_ROOT_PASSWORD: rootPassword,
    INITIAL_ROOT_TOKEN: rootToken,
    LOG_LEVEL: "warn",
    // The retention scenario prunes on purpose, at a moment of its choosing.
    EVENTS_PRUNE_INTERVAL_MINUTES: "0",
    // Load from one address and a handful of tokens is what the throttles exist to stop: they are off here.
    THROTTLE_FAILED_SIGN_INS_PER_IP: "0",
    THROTTLE_OAUTH_TOKEN_PER_CLIENT: "0",
    THROTTLE_UNAUTHENTICATED_API_PER_IP: "0",
    THROTTLE_AUTHENTICATED_API_PER_USER: "0",
  },
);
await waitFor(async () => (await fetch(`${base}/-/readiness`)).ok, "the service").catch((error) => {
  console.error(server.output());
  throw error;
});

function descendantsOf(pid) {
  const listed = spawnSync("ps", ["-o", "pid=", "--ppid", String(pid)], { encoding: "utf8" }).stdout;
  return listed
    .split(/\s+/)
    .filter(Boolean)
    .map(Number)
    .flatMap((child) => [child, ...descendantsOf(child)]);
}

// The server's processes: what npm started, less its shell. Listed once, now that it is ready, because the sampler
// below runs during the measurements and spawning `ps` there would take CPU from the server.
const serverPids = descendantsOf(server.child.pid).filter((pid) => readFileSync(`/proc/${pid}/comm`, "utf8").trim() !== "sh");

/** Resident memory of the server, in MiB. */
function serverRssMiB() {
  let kib = 0;
  for (const pid of serverPids) {
    try {
      kib += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
    } catch {
      // The process has ended.
    }
  }
  return kib / 1024;
}

// ---------------------------------------------------------------------------------------------------------------
// Seeding, through the public API where clients would do it, and SQL for bulk history

async function api(method, pathname, body, headers = {}) {
  const response = await fetch(`${base}${pathname}`, {
    method,
    headers: { "PRIVATE-TOKEN": rootToken, ...(body ? { "Content-Type": "application/json" } : {}), ...headers },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${pathname} → ${response.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

async function form(pathname, fields, headers = {}) {
  const response = await fetch(`${base}${pathname}`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(fields).toString(),
    redirect: "manual",
  });
  return response;
}

console.log("Seeding…");
const project = await api("POST", "/api/v4/projects", { name: "bench", visibility: "private" });
const integration = await api("POST", `/api/v4/projects/${project.id}/alert_management/integrations`, {
  name: "bench",
  type: "http",
  active: true,
});
const application = await api("POST", "/api/v4/applications", {
  name: "bench",
  redirect_uri: "http://localhost/callback",
  scopes: "api openid",
  confidential: true,
});
await api("PUT", `/api/v4/applications/${application.id}`, { trusted: true });
const basicClient = `Basic ${Buffer.from(`${application.application_id}:${application.secret}`).toString("base64")}`;

async function passwordGrant(scope) {
  const response = await form("/oauth/token", { grant_type: "password", username: "root", password: rootPassword, scope }, { Authorization: basicClient });
  if (!response.ok) throw new Error(`password grant → ${response.status} ${await response.text()}`);
  return response.json();
}
const infoToken = (await passwordGrant("api")).access_token;
const refreshTokens = [];
for (let index = 0; index < profile.connections; index++) refreshTokens.push((await passwordGrant("api openid")).refresh_token);

// Codes come from the browser flow: a signed-in session and a trusted application answer /oauth/authorize with a code.
async function signInCookie() {
  const csrfResponse = await fetch(`${base}/api/auth/csrf`);
  const cookies = csrfResponse.headers.getSetCookie().map((cookie) => cookie.split(";")[0]);
  const { csrfToken } = await csrfResponse.json();
  const signIn = await form(
    "/api/auth/callback/credentials",
    { csrfToken, login: "root", password: rootPassword, json: "true" },
    { Cookie: cookies.join("; ") },
  );
  return [...cookies, ...signIn.headers.getSetCookie().map((cookie) => cookie.split(";")[0])].join("; ");
}
const sessionCookie = await signInCookie();
const authorizeUrl = `/oauth/authorize?${new URLSearchParams({
  client_id: application.application_id,
  redirect_uri: "http://localhost/callback",
  response_type: "code",
  scope: "api",
  state: "bench",
})}`;
const codes = [];
while (codes.length < profile.codes) {
  const batch = await Promise.all(
    Array.from({ length: Math.min(50, profile.codes - codes.length) }, async () => {
      const response = await fetch(`${base}${authorizeUrl}`, { headers: { Cookie: sessionCookie }, redirect: "manual" });
      const code = new URL(response.headers.get("location") ?? "http://x/").searchParams.get("code");
      if (!code) throw new Error(`authorize did not answer with a code (${response.status})`);
      return code;
    }),
  );
  codes.push(...batch);
}

// History for the event pages: bulk SQL, spread over the past two years, all in the bench project.
const db = postgres(databaseUrl, { max: 2, onnotice: () => {} });
const [{ id: rootId }] = await db`select id from users where username = 'root'`;
await db.unsafe(
  `insert into events (project_id, author_id, action, target_type, target_id, target_iid, target_title, created_at)
   select $1, $2, (array['created','closed','reopened','commented','joined'])[1 + n % 5]::text,
          case when n % 5 = 4 then null else 'Issue' end, case when n % 5 = 4 then null else n end,
          case when n % 5 = 4 then null else n end, case when n % 5 = 4 then null else 'Issue ' || n end,
          now() - make_interval(secs => ($3 - n) * (63072000.0 / $3))
   from generate_series(1, $3) as n`,
  [project.id, rootId, profile.events],
);
// Expired history (older than the two-year retention) in a second project, for the retention-under-load scenario.
const expiredProject = await api("POST", "/api/v4/projects", { name: "bench-expired", visibility: "private" });
await db.unsafe(
  `insert into events (project_id, author_id, action, created_at)
   select $1, $2, 'updated', now() - interval '3 years' - make_interval(secs => n)
   from generate_series(1, $3) as n`,
  [expiredProject.id, rootId, profile.expiredEvents],
);
// The bulk inserts bypass recordEvent, so bring the projects' maintained event counts up to date as well.
await db`insert into project_event_counts (project_id, event_count)
         select project_id, count(*) from events where project_id in ${db([project.id, expiredProject.id])} group by project_id
         on conflict (project_id) do update set event_count = excluded.event_count`;
await db`analyze events`;
const [{ deepId }] = await db`select id as "deepId" from events where project_id = ${project.id} order by created_at, id offset 1000 limit 1`;

// ---------------------------------------------------------------------------------------------------------------
// Peers

const peers = {};
const oidcPeerPort = port + 1;
{
  const peer = startProcess(process.execPath, ["bench/peers/oidc-provider.mjs", String(oidcPeerPort), String(profile.connections)], {});
  await waitFor(async () => peer.output().includes('"ready":true'), "node-oidc-provider", 30_000);
  const line = peer.output().split("\n").find((candidate) => candidate.includes('"ready":true'));
  peers.oidc = JSON.parse(line);
}
const alertmanagerBinary = ["/usr/bin/prometheus-alertmanager", "/usr/bin/alertmanager"].find((candidate) => existsSync(candidate));
const alertmanagerPort = port + 2;
if (alertmanagerBinary) {
  const directory = mkdtempSync(path.join(tmpdir(), "bench-alertmanager-"));
  writeFileSync(path.join(directory, "alertmanager.yml"), "route:\n  receiver: nowhere\nreceivers:\n  - name: nowhere\n");
  startProcess(
    alertmanagerBinary,
    [
      `--config.file=${path.join(directory, "alertmanager.yml")}`,
      `--storage.path=${directory}`,
      `--web.listen-address=127.0.0.1:${alertmanagerPort}`,
      "--cluster.listen-address=",
    ],
    {},
  );
  await waitFor(async () => (await fetch(`http://127.0.0.1:${alertmanagerPort}/-/ready`)).ok, "Alertmanager", 30_000);
  peers.alertmanager = true;
}

// ---------------------------------------------------------------------------------------------------------------
// Scenarios

/** A realistic 1–2 KB generic alert payload (about 1.2 KB). */
function alertPayload(fingerprint) {
  return JSON.stringify({
    title: "High error rate on checkout-service",
    description:
      "The 5xx rate of checkout-service exceeded 5% for 10 minutes in eu-west-1. ".repeat(4) +
      "Most failures come from the payment provider client timing out after 3 s; retries amplify the load on the " +
      "provider gateway. Check the gateway dashboard and the provider status page before failing over.",
    start_time: new Date().toISOString(),
    service: "checkout-service",
    monitoring_tool: "Grafana",
    hosts: ["checkout-1.eu-west-1.internal", "checkout-2.eu-west-1.internal", "checkout-3.eu-west-1.internal"],
    severity: "high",
    fingerprint,
    gitlab_environment_name: "production",
    labels: { team: "payments", region: "eu-west-1", tier: "backend", runbook: "https://runbooks.example.com/checkout/5xx" },
    annotations: {
      dashboard: "https://grafana.example.com/d/checkout",
      query: "sum(rate(http_requests_total{code=~\"5..\"}[5m]))",
      value: "0.0734",
      threshold: "0.05",
      generator_url: "https://grafana.example.com/alerting/grafana/checkout-5xx/view",
    },
  });
}

function run(options) {
  return new Promise((resolve, reject) => {
    let peakRss = serverRssMiB();
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, serverRssMiB())), 250);
    const settings = { connections: profile.connections, duration: profile.duration, timeout: 30, ...options };
    // A fixed number of requests replaces the duration (autocannon takes one or the other).
    if (settings.amount !== undefined || settings.duration === undefined) delete settings.duration;
    autocannon(settings, (error, result) => {
      clearInterval(sampler);
      if (error) reject(error);
      else resolve({ result, peakRss });
    });
  });
}

/**
 * Refresh requests that follow rotation: each request takes a live refresh token from the pool and its answer puts
 * the new one back. (autocannon resets a connection's context after every pass, so the chain cannot live there.)
 */
function refreshChain(pool) {
  return [
    {
      setupRequest: (request) => ({ ...request, body: `grant_type=refresh_token&refresh_token=${pool.shift() ?? "pool-empty"}` }),
      onResponse: (status, body) => {
        if (status === 200) pool.push(JSON.parse(body).refresh_token);
      },
    },
  ];
}

let uniqueCounter = 0;
const scenarios = [
  { name: "liveness", reference: true, options: { url: `${base}/-/liveness` } },
  {
    name: "receiver: new alerts",
    peer: "alertmanager",
    target: { ratio: 0.6, p99: 50 },
    options: {
      url: integration.url,
      method: "POST",
      headers: { Authorization: `Bearer ${integration.token}`, "Content-Type": "application/json" },
      requests: [{ setupRequest: (request) => ({ ...request, body: alertPayload(`new-${Date.now()}-${uniqueCounter++}`) }) }],
    },
  },
  {
    name: "receiver: grouped repeats",
    options: {
      url: integration.url,
      method: "POST",
      headers: { Authorization: `Bearer ${integration.token}`, "Content-Type": "application/json" },
      body: alertPayload("grouped"),
    },
  },
  {
    name: "alert storm",
    storm: true,
    warmUp: false,
    options: {
      url: integration.url,
      method: "POST",
      amount: profile.storm.alerts,
      duration: undefined,
      headers: { Authorization: `Bearer ${integration.token}`, "Content-Type": "application/json" },
      requests: [{ setupRequest: (request) => ({ ...request, body: alertPayload(`storm-${uniqueCounter++ % profile.storm.fingerprints}`) }) }],
    },
  },
  {
    name: "/oauth/token/info",
    peer: "oidc introspection",
    target: { ratio: 0.5, peerRatio: 1.0 },
    options: { url: `${base}/oauth/token/info`, headers: { Authorization: `Bearer ${infoToken}` } },
  },
  {
    name: "refresh grant",
    peer: "oidc refresh",
    // Requests cut off at the end of a run take rotated tokens with them; a warm-up would drain the chain's pool.
    warmUp: false,
    options: {
      url: `${base}/oauth/token`,
      method: "POST",
      headers: { Authorization: basicClient, "Content-Type": "application/x-www-form-urlencoded" },
      requests: refreshChain(refreshTokens),
    },
  },
  {
    name: "authorization-code exchange",
    // Every code works once, and the run needs all of them.
    warmUp: false,
    options: {
      url: `${base}/oauth/token`,
      method: "POST",
      amount: codes.length,
      duration: undefined,
      headers: { Authorization: basicClient, "Content-Type": "application/x-www-form-urlencoded" },
      requests: [
        {
          setupRequest: (request) => ({
            ...request,
            body: `grant_type=authorization_code&code=${codes.pop()}&redirect_uri=${encodeURIComponent("http://localhost/callback")}`,
          }),
        },
      ],
    },
  },
  {
    name: "project events, page 1",
    latencyTarget: 2,
    options: { url: `${base}/api/v4/projects/${project.id}/events`, headers: { "PRIVATE-TOKEN": rootToken } },
  },
  {
    name: "project events, deep keyset page",
    latencyTarget: 2,
    options: {
      url: `${base}/api/v4/projects/${project.id}/events?pagination=keyset&per_page=20&id_before=${deepId}`,
      headers: { "PRIVATE-TOKEN": rootToken },
    },
  },
  { name: "/events?scope=all", options: { url: `${base}/api/v4/events?scope=all`, headers: { "PRIVATE-TOKEN": rootToken } } },
];

const peerScenarios = {
  alertmanager: {
    url: `http://127.0.0.1:${alertmanagerPort}/api/v2/alerts`,
    method: "POST",
    headers: { "Content-Type": "application/json" },
    requests: [
      {
        setupRequest: (request) => ({
          ...request,
          body: JSON.stringify([
            {
              labels: { alertname: "HighErrorRate", service: "checkout-service", instance: `checkout-${uniqueCounter++}` },
              annotations: { summary: "High error rate on checkout-service", description: "The 5xx rate exceeded 5%." },
              startsAt: new Date().toISOString(),
              generatorURL: "http://prometheus/graph?g0.expr=up",
            },
          ]),
        }),
      },
    ],
  },
  "oidc introspection": {
    url: `http://localhost:${oidcPeerPort}/token/introspection`,
    method: "POST",
    headers: { Authorization: `Basic ${Buffer.from("bench:bench-secret").toString("base64")}`, "Content-Type": "application/x-www-form-urlencoded" },
    body: `token=${peers.oidc.accessToken}`,
  },
  "oidc refresh": {
    url: `http://localhost:${oidcPeerPort}/token`,
    method: "POST",
    headers: { Authorization: `Basic ${Buffer.from("bench:bench-secret").toString("base64")}`, "Content-Type": "application/x-www-form-urlencoded" },
    requests: refreshChain(peers.oidc.refreshTokens),
  },
};

function summarize(name, { result, peakRss }) {
  return {
    name,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx + result.errors + result.timeouts,
    requests: result.requests.total,
    peakRss,
  };
}

const rows = [];
let liveness;
const livenessScenario = scenarios.find((scenario) => scenario.reference);

/** A short unmeasured run first, so every scenario, the reference included, is measured with warm code paths. */
async function measure(scenario) {
  if (scenario.warmUp !== false) await run({ ...scenario.options, duration: profile.warmUp });
  return summarize(scenario.name, await run(scenario.options));
}

for (const scenario of scenarios) {
  if (!scenario.reference && !selected(scenario.name)) continue;
  // This machine's speed drifts by tens of percent over minutes, so a scenario judged against liveness is judged
  // against a liveness run taken just before it rather than against the first one.
  const judged = scenario.target?.ratio || scenario.latencyTarget;
  let adjacentLiveness;
  if (judged) {
    process.stdout.write(`  liveness (reference for ${scenario.name})…`);
    adjacentLiveness = await measure(livenessScenario);
    process.stdout.write(` ${Math.round(adjacentLiveness.rps)} req/s\n`);
  }
  process.stdout.write(`  ${scenario.name}…`);
  const row = await measure(scenario);
  process.stdout.write(` ${Math.round(row.rps)} req/s\n`);
  if (scenario.reference) liveness = row;
  row.liveness = adjacentLiveness ?? liveness;
  if (scenario.peer && peerScenarios[scenario.peer] && (scenario.peer !== "alertmanager" || peers.alertmanager)) {
    process.stdout.write(`  ${scenario.peer} (peer)…`);
    if (scenario.warmUp !== false) await run({ ...peerScenarios[scenario.peer], duration: profile.warmUp });
    row.peer = summarize(scenario.peer, await run(peerScenarios[scenario.peer]));
    process.stdout.write(` ${Math.round(row.peer.rps)} req/s\n`);
  }
  if (scenario.storm) {
    const [totals] = await db`
      select count(*)::int as alerts, coalesce(sum(event_count), 0)::int as events
      from alerts where project_id = ${project.id} and fingerprint is not null and payload->>'fingerprint' like 'storm-%'`;
    row.check = `${totals.alerts} alerts, ${totals.events} events (expected ${profile.storm.fingerprints}, ${profile.storm.alerts})`;
    row.checkPassed = totals.alerts === profile.storm.fingerprints && totals.events === profile.storm.alerts;
  }
  row.scenario = scenario;
  rows.push(row);
  await sleep(500);
}

/**
 * Retention under load: the expired events are pruned (through the admin endpoint, as the scheduled job does) while
 * clients keep reading the first page of project events. Reads must stay fast; every expired event must go.
 */
async function retentionUnderLoad() {
  process.stdout.write("  retention under read load…");
  let peakRss = serverRssMiB();
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, serverRssMiB())), 250);
  const load = autocannon({
    url: `${base}/api/v4/projects/${project.id}/events`,
    headers: { "PRIVATE-TOKEN": rootToken },
    connections: Math.min(profile.connections, 8),
    duration: 600,
    timeout: 30,
  });
  const finished = new Promise((resolve) => load.on("done", resolve));
  const startedAt = performance.now();
  const prune = await api("POST", "/api/v4/admin/events/prune");
  const pruneSeconds = (performance.now() - startedAt) / 1000;
  load.stop();
  const result = await finished;
  clearInterval(sampler);
  const [{ left }] = await db`select count(*)::int as left from events where project_id = ${expiredProject.id} and created_at < now() - interval '730 days'`;
  process.stdout.write(` ${prune.deleted} deleted in ${pruneSeconds.toFixed(1)} s, slowest read ${result.latency.max} ms\n`);
  return {
    name: "retention under read load",
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    max: result.latency.max,
    non2xx: result.non2xx + result.errors + result.timeouts,
    peakRss,
    check: `${prune.deleted} expired events deleted in ${pruneSeconds.toFixed(1)} s, ${left} expired left; slowest read ${result.latency.max} ms`,
    checkPassed: left === 0 && prune.deleted >= profile.expiredEvents && result.latency.max <= 200,
    scenario: { name: "retention under read load", latencyTarget: undefined },
  };
}
if (selected("retention under read load")) rows.push(await retentionUnderLoad());

// ---------------------------------------------------------------------------------------------------------------
// Report

const format = (value, digits = 0) => (value === undefined || Number.isNaN(value) ? "–" : value.toFixed(digits));
const lines = [
  `| scenario | req/s | p50 ms | p99 ms | non-2xx | peak RSS MiB | vs liveness | vs peer |`,
  `|---|---:|---:|---:|---:|---:|---:|---:|`,
];
const verdicts = [];
for (const row of rows) {
  const reference = row.liveness ?? liveness;
  const throughputRatio = row.rps / reference.rps;
  const latencyRatio = row.p50 / Math.max(reference.p50, 1);
  const adjacent = reference === liveness ? "" : ` (liveness just before: ${format(reference.rps)} req/s, p50 ${format(reference.p50, 1)} ms)`;
  const vsLiveness = row.scenario.reference
    ? "reference"
    : row.scenario.latencyTarget
      ? `${format(throughputRatio, 2)}× req/s, ${format(latencyRatio, 1)}× p50${adjacent}`
      : `${format(throughputRatio, 2)}×${adjacent}`;
  const vsPeer = row.peer ? `${format(row.rps / row.peer.rps, 2)}× ${row.scenario.peer} (${Math.round(row.peer.rps)} req/s)` : "–";
  lines.push(
    `| ${row.name}${row.check ? ` (${row.check})` : ""} | ${format(row.rps)} | ${format(row.p50, 1)} | ${format(row.p99, 1)} | ${row.non2xx} | ${format(row.peakRss)} | ${vsLiveness} | ${vsPeer} |`,
  );
  const target = row.scenario.target;
  if (target?.ratio) verdicts.push([`${row.name} ≥ ${target.ratio} × liveness req/s`, throughputRatio >= target.ratio, format(throughputRatio, 2)]);
  if (target?.p99) verdicts.push([`${row.name} p99 ≤ ${target.p99} ms`, row.p99 <= target.p99, `${format(row.p99, 1)} ms`]);
  if (target?.peerRatio && row.peer) verdicts.push([`${row.name} ≥ ${target.peerRatio} × ${row.scenario.peer}`, row.rps / row.peer.rps >= target.peerRatio, format(row.rps / row.peer.rps, 2)]);
  if (row.scenario.latencyTarget) verdicts.push([`${row.name} p50 within ${row.scenario.latencyTarget}× liveness`, latencyRatio <= row.scenario.latencyTarget, `${format(latencyRatio, 1)}×`]);
  if (row.name.startsWith("receiver")) verdicts.push([`${row.name}: zero non-2xx`, row.non2xx === 0, String(row.non2xx)]);
  if (row.check && row.scenario.storm) verdicts.push([`alert storm loses and double-counts nothing`, row.checkPassed, row.check]);
  if (row.check && !row.scenario.storm) verdicts.push([`retention deletes every expired event with no read over 200 ms`, row.checkPassed, row.check]);
}
lines.push("", ...verdicts.map(([what, met, value]) => `- ${met ? "met" : "NOT met"}: ${what} (${value})`));
const report = lines.join("\n");
console.log(`\n${report}\n`);
console.log(
  `Mode: ${quick ? "quick" : "full"} · ${profile.connections} connections · ${profile.duration} s per scenario after ${profile.warmUp} s of warm-up · ` +
    `${profile.events} events · alert payloads of ${alertPayload("new-0000000000000-00000").length} bytes · ` +
    `peers: node-oidc-provider${peers.alertmanager ? ", Prometheus Alertmanager" : " (Alertmanager not installed: no receiver peer)"} · ` +
    `whole run ${((performance.now() - benchStartedAt) / 60_000).toFixed(1)} min`,
);
// A run of some scenarios (`--only`) is only printed: the files hold whole runs.
if (!onlyParts) {
  mkdirSync(path.join(root, "bench", "results"), { recursive: true });
  writeFileSync(path.join(root, "bench", "results", quick ? "quick.md" : "latest.md"), `${report}\n`);
}

await db.end();
await cleanUp();
process.exit(0);
