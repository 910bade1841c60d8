// Benchmark harness: builds and starts the service on PostgreSQL, seeds what each scenario needs, drives load with
// autocannon and prints a table; then runs the main scenarios again on a second server started on the embedded
// database (PGlite) and prints a second table. Every figure is reported as a ratio to references measured in the same
// run — `/-/liveness` (the framework's own cost per request), a plain node:http server answering a small JSON body
// (the platform's), node-oidc-provider and Prometheus Alertmanager — because absolute numbers on shared machines are
// noise. Each row also gives the CPU time the serving process spent per request answered.
//
//   npm run bench                 full run (≈ 10–13 minutes on 2 cores)
//   npm run bench -- --quick      seconds per scenario and small data, to prove the harness works; then the scale
//                                 matrix and the hostile mix on tiny data
//   npm run bench -- --scale      the scale matrix (every list, page 1 and deep, as each kind of viewer) over
//                                 10 000 000 events on PostgreSQL and 1 000 000 on the embedded database, and the
//                                 hostile mix (bench/scale/profile.mjs lists its options)
//   options: --skip-build  --only=<part of a scenario's name,...>  --port=<n> (uses ports n to n+5)
//            --cpu-prof=<dir>  a CPU profile of the service per measured scenario (bench/cpu-profile.mjs)
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import autocannon from "autocannon";
import postgres from "postgres";
import {
  apiCall,
  basicAuth,
  cleanUp,
  clockTicksPerSecond,
  cpuSeconds,
  form,
  format,
  measureLoad,
  onCleanUp,
  perRequest,
  postgresBackendsOf,
  processTree,
  removeWhenDone,
  root,
  rssMiB,
  serviceEnvironment,
  signInCookie,
  startProcess,
  startService as startServiceProcess,
  waitFor,
} from "./harness.mjs";
import { insertCountedEvents } from "../lib/testing/counted-events.mjs";
import { runScaleProfile } from "./scale/profile.mjs";
import { webhookScenarios } from "./webhooks.mjs";
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
const cpuProfileDir = typeof args.get("cpu-prof") === "string" ? path.resolve(args.get("cpu-prof")) : null;
if (cpuProfileDir) mkdirSync(cpuProfileDir, { recursive: true });
const ports = { postgres: port, oidcPeer: port + 1, alertmanager: port + 2, nodeHttp: port + 3, embedded: port + 4, hookReceiver: port + 5 };

const profile = quick
  ? { duration: 2, warmUp: 1, connections: 8, events: 20_000, expiredEvents: 20_000, storm: { alerts: 2_000, fingerprints: 20 }, codes: 300 }
  : { duration: 12, warmUp: 3, connections: 32, events: 1_000_000, expiredEvents: 500_000, storm: { alerts: 20_000, fingerprints: 200 }, codes: 6_000 };

const rootPassword = "bench-root-password";
const rootToken = "bench-root-token-0123456789abcdef";

// ---------------------------------------------------------------------------------------------------------------
// The database, processes and what they cost

const serverUrl = process.env.DATABASE_URL;
if (!serverUrl || !/^postgres(ql)?:\/\//.test(serverUrl)) {
  console.error(
    "The benchmark runs the service on PostgreSQL: set DATABASE_URL to a server it may create a database on,\n" +
      "e.g. DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench",
  );
  process.exit(2);
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

for (const taken of Object.values(ports)) {
  const busy = await fetch(`http://localhost:${taken}/`).then(
    () => true,
    () => false,
  );
  if (busy) {
    console.error(`Port ${taken} is in use; pass --port=<n> to run the benchmark on ports n to n+5.`);
    await cleanUp();
    process.exit(2);
  }
}

if (!args.has("skip-build") || !existsSync(path.join(root, ".next", "BUILD_ID"))) {
  console.log("Building the service (next build)…");
  const build = spawnSync(process.execPath, [require.resolve("next/dist/bin/next"), "build"], { cwd: root, stdio: "inherit" });
  if (build.status !== 0) throw new Error("next build failed");
}

const credentials = { rootPassword, rootToken };
/** The scale matrix and the hostile mix (bench/scale/), with the options they read. */
const scaleOptions = { serverUrl, ports, credentials, args };

// `--scale` runs that profile alone (with `--quick`, its quick variant alone).
if (args.has("scale")) {
  await runScaleProfile({ ...scaleOptions, quick, only: onlyParts });
  await cleanUp();
  process.exit(0);
}

const databaseName = `bench_${Date.now()}`;
const databaseUrl = (() => {
  const url = new URL(serverUrl);
  url.pathname = `/${databaseName}`;
  return url.toString();
})();
const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
await admin.unsafe(`create database "${databaseName}"`);
onCleanUp(async () => {
  await admin.unsafe(`drop database if exists "${databaseName}" with (force)`);
  await admin.end();
});

/** The service under `npm start` on `database` (DATABASE_URL or DATA_DIR), profiled with `--cpu-prof`. */
const startService = (label, servicePort, database) =>
  startServiceProcess(label, servicePort, { ...serviceEnvironment(credentials), ...database }, { cpuProfileDir });

// ---------------------------------------------------------------------------------------------------------------
// Seeding, through the public API where clients would do it, and SQL for bulk history

const api = (base, method, pathname, body, headers) => apiCall(base, rootToken, method, pathname, body, headers);

/** What every server's scenarios need: a project with an alert integration, and a confidential application. */
async function seedThroughApi(base) {
  const project = await api(base, "POST", "/api/v4/projects", { name: "bench", visibility: "private" });
  const integration = await api(base, "POST", `/api/v4/projects/${project.id}/alert_management/integrations`, {
    name: "bench",
    type: "http",
    active: true,
  });
  const application = await api(base, "POST", "/api/v4/applications", {
    name: "bench",
    redirect_uri: "http://localhost/callback",
    scopes: "api openid",
    confidential: true,
  });
  await api(base, "PUT", `/api/v4/applications/${application.id}`, { trusted: true });
  const basicClient = basicAuth(application.application_id, application.secret);
  const passwordGrant = async (scope) => {
    const response = await form(base, "/oauth/token", { grant_type: "password", username: "root", password: rootPassword, scope }, { Authorization: basicClient });
    if (!response.ok) throw new Error(`password grant → ${response.status} ${await response.text()}`);
    return response.json();
  };
  const infoToken = (await passwordGrant("api")).access_token;
  return { project, integration, application, basicClient, passwordGrant, infoToken, silenced: await seedSilencedProject(base) };
}

/**
 * A second project whose integration receives the same alerts, with 100 silences none of which matches them (equality,
 * regex and payload-path matchers, one-off and weekly windows): each alert is matched against all of them, as the
 * worst case short of a match, so its scenario measures what silences cost ingestion.
 */
async function seedSilencedProject(base) {
  const project = await api(base, "POST", "/api/v4/projects", { name: "bench-silenced", visibility: "private" });
  const integration = await api(base, "POST", `/api/v4/projects/${project.id}/alert_management/integrations`, { name: "bench", type: "http", active: true });
  const silences = `/api/v4/projects/${project.id}/alert_management/silences`;
  const endsAt = new Date(Date.now() + 30 * 24 * 3_600_000).toISOString();
  for (let n = 0; n < 100; n++) {
    const matchers = [`service="maintenance-${n}"`, `title=~"(?i)maintenance ${n}.*"`, `payload.labels.team="team-${n}"`, `host!~"db-${n}-[0-9]+"`];
    const window =
      n % 2 === 0 ? { ends_at: endsAt } : { recurrence: { days: ["sun", "mon", "tue", "wed", "thu", "fri", "sat"], start_time: "00:00", end_time: "00:00", time_zone: "Europe/Berlin" } };
    await api(base, "POST", silences, { matchers, ...window, reason: `bench ${n}` });
  }
  return { project, integration };
}

// History for the event pages: bulk SQL, spread over the past two years, all in one project. The same statements seed
// PostgreSQL and the embedded database, with the counts added in bulk (lib/testing/counted-events.mjs).
const historyInsert = `
  insert into events (project_id, author_id, action, target_type, target_id, target_iid, target_title, created_at)
  select $1, $2, (array['created','closed','reopened','commented','joined'])[1 + n % 5]::text,
         case when n % 5 = 4 then null else 'Issue' end, case when n % 5 = 4 then null else n end,
         case when n % 5 = 4 then null else n end, case when n % 5 = 4 then null else 'Issue ' || n end,
         now() - make_interval(secs => ($3 - n) * (63072000.0 / $3))
  from generate_series(1, $3) as n`;
// Expired history (older than the two-year retention), for the retention-under-load scenario.
const expiredHistoryInsert = `
  insert into events (project_id, author_id, action, created_at)
  select $1, $2, 'updated', now() - interval '3 years' - make_interval(secs => n)
  from generate_series(1, $3) as n`;

/** Runs `insert` with `params` through `transaction` (a client's own), the per-row count trigger off inside it. */
const seedEvents = (transaction, insert, params) => transaction((run) => insertCountedEvents(run, insert, params));

/** A postgres.js client's transaction, as `seedEvents` takes it. */
const postgresTransaction = (client) => (work) => client.begin((tx) => work((text, params) => tx.unsafe(text, params)));
const rootIdSql = `select id from users where username = 'root'`;

/**
 * The memory a process holds at rest: its tree's RSS half a minute after it answered its readiness check, before any
 * load (targets: 100 MiB on PostgreSQL, 200 MiB on the embedded database, the first start included). Half a minute,
 * because V8 gives back the young generation that start-up grew (32 MiB and more) only once it has seen the process
 * idle for a while (its memory reducer): a few seconds after readiness is start-up's peak, not rest. The quick mode's
 * figures are not judged.
 */
const idleRssSettleMs = quick ? 2_000 : 30_000;
async function idleRss(measured) {
  await sleep(idleRssSettleMs);
  return Math.round(rssMiB(processTree(measured.pid)));
}
/** Idle RSS figures, in MiB, reported after the tables. */
const memory = {};

console.log(`Starting the service on PostgreSQL (database ${databaseName})…`);
const service = await startService("the service on PostgreSQL", ports.postgres, { DATABASE_URL: databaseUrl });
memory.postgresIdle = await idleRss(service);

console.log("Seeding…");
const seed = await seedThroughApi(service.base);
const { project, integration, basicClient } = seed;
const refreshTokens = [];
for (let index = 0; index < profile.connections; index++) refreshTokens.push((await seed.passwordGrant("api openid")).refresh_token);

// Codes come from the browser flow: a signed-in session and a trusted application answer /oauth/authorize with a code.
const sessionCookie = await signInCookie(service.base, "root", rootPassword);
const authorizeUrl = `/oauth/authorize?${new URLSearchParams({
  client_id: seed.application.application_id,
  redirect_uri: "http://localhost/callback",
  response_type: "code",
  scope: "api",
  state: "bench",
})}`;
const codes = [];
while (codes.length < profile.codes) {
  const batch = await Promise.all(
    Array.from({ length: Math.min(50, profile.codes - codes.length) }, async () => {
      const response = await fetch(`${service.base}${authorizeUrl}`, { headers: { Cookie: sessionCookie }, redirect: "manual" });
      const code = new URL(response.headers.get("location") ?? "http://x/").searchParams.get("code");
      if (!code) throw new Error(`authorize did not answer with a code (${response.status})`);
      return code;
    }),
  );
  codes.push(...batch);
}

const db = postgres(databaseUrl, { max: 2, onnotice: () => {} });
const [{ id: rootId }] = await db.unsafe(rootIdSql);
await seedEvents(postgresTransaction(db), historyInsert, [project.id, rootId, profile.events]);
const expiredProject = await api(service.base, "POST", "/api/v4/projects", { name: "bench-expired", visibility: "private" });
await seedEvents(postgresTransaction(db), expiredHistoryInsert, [expiredProject.id, rootId, profile.expiredEvents]);
await db`analyze events`;
const [counted] = await db`select (select coalesce(sum(event_count), 0) from project_event_counts where project_id = ${project.id})::bigint as kept,
  (select count(*) from events where project_id = ${project.id})::bigint as held`;
if (counted.kept !== counted.held) throw new Error(`the seeded project's event count is ${counted.kept}, but it holds ${counted.held} events`);
const [{ deepId }] = await db`select id as "deepId" from events where project_id = ${project.id} order by created_at, id offset 1000 limit 1`;

// The PostgreSQL backends' CPU per request, read just before each measured run.
service.databasePids = () => postgresBackendsOf(db);

// ---------------------------------------------------------------------------------------------------------------
// References and peers

async function startReference(label, script, scriptArgs) {
  const started = startProcess(process.execPath, [script, ...scriptArgs], {});
  await waitFor(async () => started.output().includes('"ready":true'), label, 30_000);
  const line = started.output().split("\n").find((candidate) => candidate.includes('"ready":true'));
  return { label, pid: started.child.pid, ready: JSON.parse(line) };
}

const nodeHttp = await startReference("node:http reference", "bench/references/node-http.mjs", [String(ports.nodeHttp)]);
memory.nodeHttpIdle = await idleRss(nodeHttp);
const oidcPeer = await startReference("node-oidc-provider", "bench/peers/oidc-provider.mjs", [String(ports.oidcPeer), String(profile.connections)]);
const alertmanagerBinary = ["/usr/bin/prometheus-alertmanager", "/usr/bin/alertmanager"].find((candidate) => existsSync(candidate));
let alertmanager;
if (alertmanagerBinary) {
  const directory = mkdtempSync(path.join(tmpdir(), "bench-alertmanager-"));
  removeWhenDone(directory);
  writeFileSync(path.join(directory, "alertmanager.yml"), "route:\n  receiver: nowhere\nreceivers:\n  - name: nowhere\n");
  const started = startProcess(
    alertmanagerBinary,
    [
      `--config.file=${path.join(directory, "alertmanager.yml")}`,
      `--storage.path=${directory}`,
      `--web.listen-address=127.0.0.1:${ports.alertmanager}`,
      "--cluster.listen-address=",
    ],
    {},
  );
  await waitFor(async () => (await fetch(`http://127.0.0.1:${ports.alertmanager}/-/ready`)).ok, "Alertmanager", 30_000);
  alertmanager = { label: "Alertmanager", pid: started.child.pid };
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

/** One autocannon run at the profile's settings, measured against `measured` (see `measureLoad`). */
let profilesTaken = 0;
function run(options, measured) {
  const settings = { connections: profile.connections, duration: profile.duration, timeout: 30, ...options };
  const profiled = cpuProfileDir && measured?.service && settings.duration === profile.duration && settings.amount === undefined;
  return measureLoad(settings, measured, {
    beforeRun: () => profiled && process.kill(measured.pid, "SIGUSR2"),
    afterRun: () => {
      if (!profiled) return;
      process.kill(measured.pid, "SIGUSR2");
      process.stdout.write(` [profile ${++profilesTaken}]`);
    },
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

const isActiveIntrospection = (status, body) => status === 200 && JSON.parse(body).active === true;
/** A form POST authenticated as a client, as the OAuth endpoints take them. */
const clientFormPost = (url, authorization, rest) => ({
  url,
  method: "POST",
  headers: { Authorization: authorization, "Content-Type": "application/x-www-form-urlencoded" },
  ...rest,
});

let uniqueCounter = 0;

// The scenarios both databases run. `measured` is the process whose CPU and memory a row reports; `goals` are the
// targets judged (`ratio`: ≥ × liveness req/s, `p50Ratio`: p50 within × liveness, `p99`: ms, `peerRatio`: ≥ × peer);
// `expect` checks one answer before the load, so a fast error is never measured as a fast answer.
const sharedScenarios = {
  liveness: (server) => ({ name: "liveness", reference: "liveness", measured: server, options: { url: `${server.base}/-/liveness` } }),
  nodeHttp: () => ({
    name: `node:http reference (${JSON.stringify({ status: "ok" })})`,
    reference: "node:http",
    measured: nodeHttp,
    expect: (status) => status === 200,
    options: { url: `http://localhost:${ports.nodeHttp}/` },
  }),
  newAlerts: (server, { integration: receiver }, goals, name = "receiver: new alerts") => ({
    name,
    peer: "alertmanager",
    measured: server,
    goals,
    options: {
      url: receiver.url,
      method: "POST",
      headers: { Authorization: `Bearer ${receiver.token}`, "Content-Type": "application/json" },
      requests: [{ setupRequest: (request) => ({ ...request, body: alertPayload(`new-${Date.now()}-${uniqueCounter++}`) }) }],
    },
  }),
  groupedRepeats: (server, { integration: receiver }, goals) => ({
    name: "receiver: grouped repeats",
    measured: server,
    goals,
    options: {
      url: receiver.url,
      method: "POST",
      headers: { Authorization: `Bearer ${receiver.token}`, "Content-Type": "application/json" },
      body: alertPayload("grouped"),
    },
  }),
  tokenInfo: (server, { infoToken }, goals) => ({
    name: "/oauth/token/info",
    peer: "oidc introspection",
    measured: server,
    goals,
    expect: (status) => status === 200,
    options: { url: `${server.base}/oauth/token/info`, headers: { Authorization: `Bearer ${infoToken}` } },
  }),
  eventsPage1: (server, { project: eventsProject }, goals) => ({
    name: "project events, page 1",
    showP50: true,
    measured: server,
    goals,
    expect: (status, body) => status === 200 && JSON.parse(body).length > 0,
    options: { url: `${server.base}/api/v4/projects/${eventsProject.id}/events`, headers: { "PRIVATE-TOKEN": rootToken } },
  }),
};

/**
 * "No slower with 100 silences": within the noise of two 12-second runs on a shared machine, the same tolerance as
 * the webhooks' (bench/webhooks.mjs).
 */
const silencesCostNothing = { baseline: { name: "receiver: new alerts", ratio: 0.9 } };

const postgresScenarios = [
  sharedScenarios.liveness(service),
  sharedScenarios.nodeHttp(),
  sharedScenarios.newAlerts(service, seed, { ratio: 0.6, p99: 50 }),
  // The same alerts on a project with 100 silences that do not match them: silences must not slow ingestion down.
  { ...sharedScenarios.newAlerts(service, seed.silenced, { ratio: 0.6, p99: 50, ...silencesCostNothing }, "receiver: new alerts, 100 silences"), peer: undefined },
  sharedScenarios.groupedRepeats(service, seed),
  {
    name: "alert storm",
    warmUp: false,
    measured: service,
    options: {
      url: integration.url,
      method: "POST",
      amount: profile.storm.alerts,
      duration: undefined,
      headers: { Authorization: `Bearer ${integration.token}`, "Content-Type": "application/json" },
      requests: [{ setupRequest: (request) => ({ ...request, body: alertPayload(`storm-${uniqueCounter++ % profile.storm.fingerprints}`) }) }],
    },
    async afterRun(row) {
      const [totals] = await db`
        select count(*)::int as alerts, coalesce(sum(event_count), 0)::int as events
        from alerts where project_id = ${project.id} and fingerprint is not null and payload->>'fingerprint' like 'storm-%'`;
      row.check = `${totals.alerts} alerts, ${totals.events} events (expected ${profile.storm.fingerprints}, ${profile.storm.alerts})`;
      row.checkPassed = totals.alerts === profile.storm.fingerprints && totals.events === profile.storm.alerts;
      row.checkGoal = "alert storm loses and double-counts nothing";
    },
  },
  sharedScenarios.tokenInfo(service, seed, { peerRatio: 1 }),
  {
    name: "/oauth/introspect",
    peer: "oidc introspection",
    measured: service,
    goals: { peerRatio: 1 },
    expect: isActiveIntrospection,
    // RFC 7662 asks the caller to authenticate: the application that holds the token does, with HTTP Basic.
    options: clientFormPost(`${service.base}/oauth/introspect`, basicClient, { body: `token=${seed.infoToken}` }),
  },
  {
    name: "refresh grant",
    peer: "oidc refresh",
    measured: service,
    goals: { peerRatio: 1 },
    // Requests cut off at the end of a run take rotated tokens with them; a warm-up would drain the chain's pool.
    warmUp: false,
    options: clientFormPost(`${service.base}/oauth/token`, basicClient, { requests: refreshChain(refreshTokens) }),
  },
  {
    name: "authorization-code exchange",
    measured: service,
    // Every code works once, and the run needs all of them.
    warmUp: false,
    options: clientFormPost(`${service.base}/oauth/token`, basicClient, {
      amount: codes.length,
      duration: undefined,
      requests: [
        {
          setupRequest: (request) => ({
            ...request,
            body: `grant_type=authorization_code&code=${codes.pop()}&redirect_uri=${encodeURIComponent("http://localhost/callback")}`,
          }),
        },
      ],
    }),
  },
  {
    name: "GET /api/v4/projects/:id",
    measured: service,
    goals: { ratio: 3 },
    expect: (status, body) => status === 200 && JSON.parse(body).id === project.id,
    options: { url: `${service.base}/api/v4/projects/${project.id}`, headers: { "PRIVATE-TOKEN": rootToken } },
  },
  sharedScenarios.eventsPage1(service, seed, { ratio: 2, p99: 50 }),
  {
    name: "project events, deep keyset page",
    showP50: true,
    measured: service,
    options: {
      url: `${service.base}/api/v4/projects/${project.id}/events?pagination=keyset&per_page=20&id_before=${deepId}`,
      headers: { "PRIVATE-TOKEN": rootToken },
    },
  },
  {
    name: "/events?scope=all",
    measured: service,
    options: { url: `${service.base}/api/v4/events?scope=all`, headers: { "PRIVATE-TOKEN": rootToken } },
  },
  ...(["hooks", "webhook"].some(selected)
    ? await webhookScenarios({
        service,
        api,
        db,
        receiverPort: ports.hookReceiver,
        rootToken,
        alertPayload,
        profile,
        measured: service,
        unique: () => uniqueCounter++,
      })
    : []),
];

// The client bench/peers/oidc-provider.mjs registers.
const oidcPeerClient = basicAuth("bench", "bench-secret");
const peerScenarios = {
  alertmanager: {
    label: "Alertmanager",
    measured: alertmanager,
    options: {
      url: `http://127.0.0.1:${ports.alertmanager}/api/v2/alerts`,
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
  },
  "oidc introspection": {
    label: "node-oidc-provider introspection",
    measured: oidcPeer,
    expect: isActiveIntrospection,
    options: clientFormPost(`http://localhost:${ports.oidcPeer}/token/introspection`, oidcPeerClient, { body: `token=${oidcPeer.ready.accessToken}` }),
  },
  "oidc refresh": {
    label: "node-oidc-provider refresh",
    measured: oidcPeer,
    options: clientFormPost(`http://localhost:${ports.oidcPeer}/token`, oidcPeerClient, { requests: refreshChain(oidcPeer.ready.refreshTokens) }),
  },
};

function summarize(name, { result, peakRss, cpuPerRequest, databaseCpuPerRequest }) {
  return {
    name,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx + result.errors + result.timeouts,
    requests: result.requests.total,
    peakRss,
    cpuPerRequest,
    databaseCpuPerRequest,
  };
}

async function expectAnswer({ name, expect, options }) {
  if (!expect) return;
  const response = await fetch(options.url, { method: options.method ?? "GET", headers: options.headers, body: options.body });
  const text = await response.text();
  let expected = false;
  try {
    expected = expect(response.status, text);
  } catch {
    // Not the JSON it should be.
  }
  if (!expected) throw new Error(`${name}: unexpected answer before the load: ${response.status} ${text.slice(0, 300)}`);
}

/** A short unmeasured run first, so every scenario, the references included, is measured with warm code paths. */
async function measure(scenario) {
  await expectAnswer(scenario);
  if (scenario.warmUp !== false) await run({ ...scenario.options, duration: profile.warmUp });
  return summarize(scenario.name, await run(scenario.options, scenario.measured));
}

const microseconds = (value) => (value === undefined ? "" : `, ${Math.round(value)} µs/req`);

/**
 * Runs one server's scenarios in order. This machine's speed drifts by tens of percent over minutes, so a scenario
 * judged against liveness (or every scenario, with `adjacentLiveness`) is judged against a liveness run on the same
 * server taken just before it rather than against the first one.
 */
async function runSection({ title, scenarios, adjacentLiveness: alwaysAdjacent = false }) {
  console.log(title);
  const section = { title, rows: [] };
  const livenessScenario = scenarios.find((scenario) => scenario.reference === "liveness");
  for (const scenario of scenarios) {
    if (!scenario.reference && !selected(scenario.name)) continue;
    let adjacent;
    if (!scenario.reference && (alwaysAdjacent || scenario.goals?.ratio || scenario.goals?.p50Ratio)) {
      process.stdout.write(`  liveness (reference for ${scenario.name})…`);
      adjacent = await measure(livenessScenario);
      process.stdout.write(` ${Math.round(adjacent.rps)} req/s\n`);
    }
    await scenario.before?.();
    process.stdout.write(`  ${scenario.name}…`);
    const row = await measure(scenario);
    process.stdout.write(` ${Math.round(row.rps)} req/s${microseconds(row.cpuPerRequest)}\n`);
    if (scenario.reference === "liveness") section.liveness = row;
    if (scenario.reference === "node:http") section.nodeHttp = row;
    row.liveness = adjacent ?? section.liveness;
    const peer = scenario.peer && peerScenarios[scenario.peer];
    if (peer?.measured) {
      process.stdout.write(`  ${peer.label} (peer)…`);
      await expectAnswer({ name: peer.label, ...peer });
      if (scenario.warmUp !== false) await run({ ...peer.options, duration: profile.warmUp });
      row.peer = summarize(peer.label, await run(peer.options, peer.measured));
      process.stdout.write(` ${Math.round(row.peer.rps)} req/s${microseconds(row.peer.cpuPerRequest)}\n`);
    }
    await scenario.afterRun?.(row);
    row.scenario = scenario;
    section.rows.push(row);
    await sleep(500);
  }
  return section;
}

/**
 * Retention under load: the expired events are pruned (through the admin endpoint, as the scheduled job does) while
 * clients keep reading the first page of project events. Reads must stay fast; every expired event must go.
 */
async function retentionUnderLoad() {
  process.stdout.write("  retention under read load…");
  const pids = processTree(service.pid);
  let peakRss = rssMiB(pids);
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssMiB(pids))), 250);
  const cpuBefore = cpuSeconds(pids);
  const load = autocannon({
    url: `${service.base}/api/v4/projects/${project.id}/events`,
    headers: { "PRIVATE-TOKEN": rootToken },
    connections: Math.min(profile.connections, 8),
    duration: 600,
    timeout: 30,
  });
  const finished = new Promise((resolve) => load.on("done", resolve));
  const startedAt = performance.now();
  const prune = await api(service.base, "POST", "/api/v4/admin/events/prune");
  const pruneSeconds = (performance.now() - startedAt) / 1000;
  load.stop();
  const result = await finished;
  clearInterval(sampler);
  // The prune's own work counts too: it is part of what the server did over the window.
  const cpuPerRequest = perRequest(cpuSeconds(pids) - cpuBefore, result.requests.total, pids);
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
    cpuPerRequest,
    check: `${prune.deleted} expired events deleted in ${pruneSeconds.toFixed(1)} s, ${left} expired left; slowest read ${result.latency.max} ms`,
    checkPassed: left === 0 && prune.deleted >= profile.expiredEvents && result.latency.max <= 200,
    checkGoal: "retention deletes every expired event with no read over 200 ms",
    scenario: { name: "retention under read load" },
  };
}

const postgresSection = await runSection({ title: "On PostgreSQL:", scenarios: postgresScenarios });
postgresSection.heading = "PostgreSQL";
postgresSection.databaseColumn = "PostgreSQL CPU µs/req";
if (selected("retention under read load")) {
  const row = await retentionUnderLoad();
  row.liveness = postgresSection.liveness;
  postgresSection.rows.push(row);
}
await service.stop();

// ---------------------------------------------------------------------------------------------------------------
// The embedded database: the main scenarios on a second server, started on PGlite as `npm run up` gives a newcomer

const embeddedScenarioNames = ["/oauth/token/info", "project events, page 1", "receiver: grouped repeats", "receiver: new alerts", "receiver: new alerts, 100 silences"];
let embeddedSection;
if (embeddedScenarioNames.some(selected)) {
  const dataDir = mkdtempSync(path.join(tmpdir(), "bench-pglite-"));
  removeWhenDone(dataDir);
  const embeddedDatabase = { DATABASE_URL: undefined, DATA_DIR: dataDir };
  console.log(`Starting the service on the embedded database (${dataDir})…`);
  // The first start migrates the database and creates root; the API seeds what it can.
  const first = await startService("the service on the embedded database", ports.embedded, embeddedDatabase);
  memory.embeddedFirstStartIdle = await idleRss(first);
  const embeddedSeed = await seedThroughApi(first.base);
  await first.stop();
  // The server holds the data directory while it runs, so the bulk history goes in between two starts.
  const seedingStartedAt = performance.now();
  const { PGlite } = await import("@electric-sql/pglite");
  const pglite = new PGlite(dataDir);
  const [{ id: embeddedRootId }] = (await pglite.query(rootIdSql)).rows;
  const pgliteTransaction = (work) => pglite.transaction((tx) => work((text, params) => tx.query(text, params)));
  await seedEvents(pgliteTransaction, historyInsert, [embeddedSeed.project.id, embeddedRootId, profile.events]);
  await pglite.query("analyze events");
  await pglite.close();
  console.log(`  ${profile.events} events seeded in ${((performance.now() - seedingStartedAt) / 1000).toFixed(1)} s`);
  const embedded = await startService("the service on the embedded database", ports.embedded, embeddedDatabase);
  memory.embeddedRestartIdle = await idleRss(embedded);
  embeddedSection = await runSection({
    title: "On the embedded database (PGlite):",
    adjacentLiveness: true,
    scenarios: [
      sharedScenarios.liveness(embedded),
      sharedScenarios.nodeHttp(),
      { ...sharedScenarios.tokenInfo(embedded, embeddedSeed), peer: undefined },
      sharedScenarios.eventsPage1(embedded, embeddedSeed, { p50Ratio: 2 }),
      sharedScenarios.groupedRepeats(embedded, embeddedSeed, { ratio: 1 }),
      { ...sharedScenarios.newAlerts(embedded, embeddedSeed), peer: undefined },
      { ...sharedScenarios.newAlerts(embedded, embeddedSeed.silenced, silencesCostNothing, "receiver: new alerts, 100 silences"), peer: undefined },
    ],
  });
  embeddedSection.heading = `Embedded database (PGlite, ${profile.events} events; its query work is in the server's CPU)`;
  embeddedSection.goalPrefix = "embedded: ";
  await embedded.stop();
}

// ---------------------------------------------------------------------------------------------------------------
// Report

const verdicts = [];

function sectionReport(section) {
  const { liveness, nodeHttp: nodeHttpRow, databaseColumn, goalPrefix = "" } = section;
  const lines = [
    `| scenario | req/s | p50 ms | p99 ms | non-2xx | CPU µs/req |${databaseColumn ? ` ${databaseColumn} |` : ""} peak RSS MiB | vs liveness | vs node:http | vs peer |`,
    `|---|---:|---:|---:|---:|---:|${databaseColumn ? "---:|" : ""}---:|---:|---:|---:|`,
  ];
  for (const row of section.rows) {
    const { scenario } = row;
    const reference = row.liveness ?? liveness;
    const throughputRatio = row.rps / reference.rps;
    const latencyRatio = row.p50 / Math.max(reference.p50, 1);
    const adjacent = reference === liveness ? "" : ` (liveness just before: ${format(reference.rps)} req/s, p50 ${format(reference.p50, 1)} ms)`;
    const vsLiveness =
      scenario.reference === "liveness"
        ? "reference"
        : scenario.showP50 || scenario.goals?.p50Ratio
          ? `${format(throughputRatio, 2)}× req/s, ${format(latencyRatio, 1)}× p50${adjacent}`
          : `${format(throughputRatio, 2)}×${adjacent}`;
    const vsNodeHttp = scenario.reference === "node:http" ? "reference" : nodeHttpRow ? `${format(row.rps / nodeHttpRow.rps, 3)}×` : "–";
    const baseline = scenario.goals?.baseline && section.rows.find((candidate) => candidate.name === scenario.goals.baseline.name);
    // Each against the liveness taken just before it, when it has one: the machine's speed drifts between the two runs.
    const baselineRatio = baseline ? throughputRatio / (baseline.rps / (baseline.liveness ?? liveness).rps) : NaN;
    const vsPeer = row.peer
      ? `${format(row.rps / row.peer.rps, 2)}× ${row.peer.name} (${Math.round(row.peer.rps)} req/s, ${format(row.peer.cpuPerRequest)} µs/req)`
      : baseline
        ? `${format(baselineRatio, 2)}× ${baseline.name}`
        : "–";
    const databaseCpu = databaseColumn ? ` ${scenario.reference ? "–" : format(row.databaseCpuPerRequest)} |` : "";
    lines.push(
      `| ${row.name}${row.check ? ` (${row.check})` : ""} | ${format(row.rps)} | ${format(row.p50, 1)} | ${format(row.p99, 1)} | ${row.non2xx} | ` +
        `${format(row.cpuPerRequest)} |${databaseCpu} ${format(row.peakRss)} | ${vsLiveness} | ${vsNodeHttp} | ${vsPeer} |`,
    );
    const goals = scenario.goals ?? {};
    const name = `${goalPrefix}${row.name}`;
    if (goals.ratio) verdicts.push([`${name} ≥ ${goals.ratio}× liveness req/s`, throughputRatio >= goals.ratio, `${format(throughputRatio, 2)}×`]);
    if (goals.p99) verdicts.push([`${name} p99 ≤ ${goals.p99} ms`, row.p99 <= goals.p99, `${format(row.p99, 1)} ms`]);
    if (goals.p50Ratio) verdicts.push([`${name} p50 within ${goals.p50Ratio}× liveness`, latencyRatio <= goals.p50Ratio, `${format(latencyRatio, 1)}×`]);
    if (goals.baseline) {
      verdicts.push([`${name} ≥ ${goals.baseline.ratio}× ${goals.baseline.name}`, baselineRatio >= goals.baseline.ratio, `${format(baselineRatio, 2)}×`]);
    }
    if (goals.peerRatio && row.peer) {
      const peerRatio = row.rps / row.peer.rps;
      verdicts.push([`${name} ≥ ${goals.peerRatio}× ${row.peer.name}`, peerRatio >= goals.peerRatio, `${format(peerRatio, 2)}×`]);
    }
    if (row.name.startsWith("receiver")) verdicts.push([`${name}: zero non-2xx`, row.non2xx === 0, String(row.non2xx)]);
    if (row.checkGoal) verdicts.push([row.checkGoal, row.checkPassed, row.check]);
  }
  return [`### ${section.heading}`, "", ...lines];
}

/** Idle RSS beside the node:http reference's, and the embedded server's peak under the benchmark's load. */
function memoryReport() {
  const embeddedLoaded = embeddedSection ? Math.round(Math.max(...embeddedSection.rows.filter((row) => row.scenario.reference !== "node:http").map((row) => row.peakRss ?? 0))) : undefined;
  const figures = [
    ["PostgreSQL, idle", memory.postgresIdle, 100],
    ["embedded, idle after its first start (database created)", memory.embeddedFirstStartIdle, 200],
    ["embedded, idle after a restart", memory.embeddedRestartIdle, 200],
    ["embedded, peak under the benchmark's load", embeddedLoaded, 400],
  ].filter(([, value]) => value !== undefined);
  for (const [what, value, limit] of figures) verdicts.push([`${what}: RSS ≤ ${limit} MiB`, value <= limit, `${value} MiB`]);
  return [
    "### Memory (RSS of the serving process, MiB)",
    "",
    "| process | RSS MiB |",
    "|---|---:|",
    ...figures.map(([what, value]) => `| the service, ${what} | ${value} |`),
    `| node:http reference, idle | ${memory.nodeHttpIdle} |`,
  ];
}

const sections = [postgresSection, embeddedSection].filter(Boolean);
const report = [
  ...sections.flatMap((section) => [...sectionReport(section), ""]),
  ...memoryReport(),
  "",
  ...verdicts.map(([what, met, value]) => `- ${met ? "met" : "NOT met"}: ${what} (${value})`),
].join("\n");
console.log(`\n${report}\n`);
console.log(
  `Mode: ${quick ? "quick" : "full"} · ${profile.connections} connections · ${profile.duration} s per scenario after ${profile.warmUp} s of warm-up · ` +
    `${profile.events} events (on each database) · alert payloads of ${alertPayload("new-0000000000000-00000").length} bytes · ` +
    `CPU read from /proc every run at ${clockTicksPerSecond} ticks/s · references: liveness, node:http · peers: node-oidc-provider` +
    `${alertmanager ? ", Prometheus Alertmanager" : " (Alertmanager not installed: no receiver peer)"} · ` +
    `whole run ${((performance.now() - benchStartedAt) / 60_000).toFixed(1)} min`,
);
await db.end();

// CI proves the scale matrix and the hostile mix run end to end with the quick run: tiny data, one-second cells.
let scaleReport = "";
if (quick && ["scale matrix", "hostile mix"].some(selected)) {
  scaleReport = await runScaleProfile({ ...scaleOptions, quick: true, only: onlyParts });
}

// A run of some scenarios (`--only`) is only printed: the files hold whole runs.
if (!onlyParts) {
  mkdirSync(path.join(root, "bench", "results"), { recursive: true });
  writeFileSync(path.join(root, "bench", "results", quick ? "quick.md" : "latest.md"), `${report}\n${scaleReport ? `\n${scaleReport}\n` : ""}`);
}

await cleanUp();
process.exit(0);
