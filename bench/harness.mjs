// What every benchmark profile shares: the processes it starts (the service under `npm start`, references, peers),
// what they cost (CPU from /proc, resident memory), one autocannon run measured against a process tree, and the
// service's API and forms as a client calls them.
import { spawn, spawnSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";

export const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

const children = [];
const temporaryDirectories = [];
const cleanUpSteps = [];

/** A directory removed when the benchmark ends, however it ends. */
export function removeWhenDone(directory) {
  temporaryDirectories.push(directory);
}

/** Work to do when the benchmark ends (dropping a database, closing a client), after every child has stopped. */
export function onCleanUp(step) {
  cleanUpSteps.push(step);
}

export async function cleanUp() {
  // Each child leads its own process group, so a server started through npm goes down with its shell and npm.
  for (const child of children) {
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {
      // Already gone.
    }
  }
  await sleep(300);
  for (const directory of temporaryDirectories) rmSync(directory, { recursive: true, force: true });
  for (const step of cleanUpSteps.splice(0).reverse()) await step().catch(() => {});
}

/** Starts a process in a group of its own; an environment value of undefined removes that variable. */
export function startProcess(command, commandArgs, env) {
  const environment = { ...process.env, ...env };
  for (const [name, value] of Object.entries(environment)) if (value === undefined) delete environment[name];
  const child = spawn(command, commandArgs, { cwd: root, env: environment, stdio: ["ignore", "pipe", "pipe"], detached: true });
  children.push(child);
  let output = "";
  child.stdout.on("data", (chunk) => (output = (output + chunk).slice(-20_000)));
  child.stderr.on("data", (chunk) => (output = (output + chunk).slice(-20_000)));
  return { child, output: () => output };
}

export async function waitFor(check, what, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await sleep(250);
  }
  throw new Error(`${what} did not become ready in ${timeoutMs / 1000} s`);
}

export function descendantsOf(pid) {
  const listed = spawnSync("ps", ["-o", "pid=", "--ppid", String(pid)], { encoding: "utf8" }).stdout;
  return listed
    .split(/\s+/)
    .filter(Boolean)
    .map(Number)
    .flatMap((child) => [child, ...descendantsOf(child)]);
}

/** A process and whatever it has started (a database process of its own, say); its threads count with it. */
export const processTree = (pid) => [pid, ...descendantsOf(pid)];

export const alive = (pid) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
};

export const clockTicksPerSecond = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim()) || 100;

/** User + system CPU seconds the processes have used, all their threads (worker threads too) included. */
export function cpuSeconds(pids) {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      // The fields after the command name, which is in parentheses and may itself hold spaces and parentheses;
      // utime and stime are fields 14 and 15 of proc(5), the 12th and 13th after it.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // The process has ended.
    }
  }
  return ticks / clockTicksPerSecond;
}

/** Resident memory of the processes, in MiB. */
export function rssMiB(pids) {
  let kib = 0;
  for (const pid of pids) {
    try {
      kib += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
    } catch {
      // The process has ended.
    }
  }
  return kib / 1024;
}

/** CPU seconds over a run in µs per request completed; undefined when no process was measured. */
export const perRequest = (seconds, requests, pids) => (pids.length && requests ? (seconds * 1e6) / requests : undefined);

/** The environment every benchmarked service runs with. */
export function serviceEnvironment({ rootPassword, rootToken }) {
  return {
    NODE_ENV: "production",
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
  };
}

/**
 * Starts the service with `npm start`, as operators run it, so the benchmark measures the runtime settings its script
 * gives Node.js; CPU and memory are then read from the node process that serves (`server.mjs`), not npm or its shell.
 * `environment` is `serviceEnvironment(…)` plus the database's settings; `cpuProfileDir` preloads bench/cpu-profile.mjs.
 */
export async function startService(label, servicePort, environment, { cpuProfileDir = null, readyTimeoutMs = 120_000 } = {}) {
  const base = `http://localhost:${servicePort}`;
  const started = startProcess("npm", ["start", "--", "-p", String(servicePort), "--keepAliveTimeout", "70000"], {
    EXTERNAL_URL: base,
    ...environment,
    ...(cpuProfileDir
      ? { NODE_OPTIONS: `--import=${path.join(root, "bench", "cpu-profile.mjs")}`, BENCH_CPU_PROFILE_DIR: cpuProfileDir }
      : {}),
  });
  await waitFor(async () => (await fetch(`${base}/-/readiness`)).ok, label, readyTimeoutMs).catch((error) => {
    console.error(started.output());
    throw error;
  });
  const pid = descendantsOf(started.child.pid).find((candidate) => {
    try {
      return readFileSync(`/proc/${candidate}/cmdline`, "utf8").split("\0").some((arg) => arg.endsWith("server.mjs"));
    } catch {
      return false;
    }
  });
  if (!pid) throw new Error(`${label}: no node process running server.mjs under npm start`);
  return { label, base, pid, service: true, output: started.output, stop: () => stopProcess(started, pid) };
}

/** Stops a process group and waits until `pid` (the process that holds files, such as a database) has ended. */
export async function stopProcess({ child }, pid = child.pid) {
  try {
    process.kill(-child.pid, "SIGTERM");
  } catch {
    // Already gone.
  }
  const deadline = Date.now() + 15_000;
  while ((alive(pid) || alive(child.pid)) && Date.now() < deadline) await sleep(100);
  if (alive(pid) || alive(child.pid)) {
    process.kill(-child.pid, "SIGKILL");
    while (alive(pid)) await sleep(100);
  }
  children.splice(children.indexOf(child), 1);
}

/** An API call that must succeed (within ten minutes: a server that hangs fails the benchmark rather than stalling it). */
export async function apiCall(base, token, method, pathname, body, headers = {}) {
  const response = await fetch(`${base}${pathname}`, {
    method,
    headers: { ...(token ? { "PRIVATE-TOKEN": token } : {}), ...(body ? { "Content-Type": "application/json" } : {}), ...headers },
    body: body ? JSON.stringify(body) : undefined,
    signal: AbortSignal.timeout(600_000),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${pathname} → ${response.status} ${text.slice(0, 500)}`);
  return text ? JSON.parse(text) : null;
}

export async function form(base, pathname, fields, headers = {}) {
  return fetch(`${base}${pathname}`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(fields).toString(),
    redirect: "manual",
  });
}

export const basicAuth = (id, secret) => `Basic ${Buffer.from(`${id}:${secret}`).toString("base64")}`;

/** A browser session's cookies for `login`, signed in through the credentials form as a person would. */
export async function signInCookie(base, login, password) {
  const csrfResponse = await fetch(`${base}/api/auth/csrf`);
  const cookies = csrfResponse.headers.getSetCookie().map((cookie) => cookie.split(";")[0]);
  const { csrfToken } = await csrfResponse.json();
  const signIn = await form(base, "/api/auth/callback/credentials", { csrfToken, login, password, json: "true" }, { Cookie: cookies.join("; ") });
  const sessionCookies = signIn.headers.getSetCookie().map((cookie) => cookie.split(";")[0]);
  if (!sessionCookies.some((cookie) => cookie.includes("session-token"))) throw new Error(`signing in as ${login} → ${signIn.status}, no session`);
  return [...cookies, ...sessionCookies].join("; ");
}

/**
 * One autocannon run (`settings` are autocannon's options). With a measured process (`measured.pid`, and
 * `measured.databasePids` for the database's own processes), it reports that process tree's peak RSS and its CPU time
 * over the run per request answered. `beforeRun`/`afterRun` bracket the load itself (a CPU profile, say).
 */
export async function measureLoad(settings, measured, { beforeRun, afterRun } = {}) {
  const pids = measured ? processTree(measured.pid) : [];
  const databasePids = measured?.databasePids ? await measured.databasePids() : [];
  let peakRss = rssMiB(pids);
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssMiB(pids))), 250);
  // A fixed number of requests replaces the duration (autocannon takes one or the other).
  const options = { ...settings };
  if (options.amount !== undefined || options.duration === undefined) delete options.duration;
  const cpuBefore = cpuSeconds(pids);
  const databaseCpuBefore = cpuSeconds(databasePids);
  beforeRun?.();
  try {
    const result = await new Promise((resolve, reject) => autocannon(options, (error, done) => (error ? reject(error) : resolve(done))));
    afterRun?.();
    return {
      result,
      peakRss,
      cpuPerRequest: perRequest(cpuSeconds(pids) - cpuBefore, result.requests.total, pids),
      databaseCpuPerRequest: perRequest(cpuSeconds(databasePids) - databaseCpuBefore, result.requests.total, databasePids),
    };
  } finally {
    clearInterval(sampler);
  }
}

/**
 * The PostgreSQL backends serving a database, for their CPU per request. Read just before a measured run, once the
 * warm-up has opened the server's pool; none when PostgreSQL runs on another machine.
 */
export async function postgresBackendsOf(db) {
  const rows = await db`select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`;
  return rows.map((row) => row.pid).filter((pid) => {
    try {
      readFileSync(`/proc/${pid}/stat`);
      return true;
    } catch {
      return false;
    }
  });
}

export const format = (value, digits = 0) => (value === undefined || value === null || Number.isNaN(value) ? "–" : value.toFixed(digits));
