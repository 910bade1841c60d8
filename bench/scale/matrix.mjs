// The scale matrix: every list the service serves (API lists, and the pages and Atom feeds that show them), page 1 and
// a deep page, as each kind of viewer. A cell is measured under load like the other scenarios, unless a first request
// already takes longer than the matrix's p99 limit: then it is measured with a few requests one after another (a load
// of 32 such requests at once measures only the queue, and leaves the server busy for the next cell), and a request
// that does not answer in time is given up and its query cancelled. Every cell is reported as measured, with its
// status and non-2xx count.
import { setTimeout as sleep } from "node:timers/promises";
import { cpuSeconds, format, measureLoad, perRequest, processTree } from "../harness.mjs";
import { viewerKinds } from "./viewers.mjs";

/** Viewers measured on deep pages; admin and external are measured on page 1 only. */
const deepPageViewers = ["owner", "reporter", "guest", "non-member", "anonymous"];

/** The matrix's own limits (targets 5): a page 1 within these, and no request of any cell over `anyP99Ms`. */
export const matrixTargets = { pageOneP50Ratio: 2, pageOneP99Ms: 100, anyP99Ms: 250, embeddedP50Ratio: 3 };

/** The deepest offset page the matrix asks for: page 2000 of 20, or the last page of a shorter list. */
const deepPage = (rows) => Math.max(1, Math.min(2000, Math.ceil(rows / 20)));

/** What a viewer sends: a token to the API, cookies to pages, a feed token to Atom feeds. */
function credentialsFor(viewer, surface) {
  if (viewer.kind === "anonymous") return { headers: {}, query: "" };
  if (surface === "api") return { headers: { "PRIVATE-TOKEN": viewer.token }, query: "" };
  if (surface === "feed") return { headers: {}, query: `feed_token=${encodeURIComponent(viewer.feedToken)}` };
  return { headers: { Cookie: viewer.cookie }, query: "" };
}

const withQuery = (url, query) => (query ? `${url}${url.includes("?") ? "&" : "?"}${query}` : url);

/**
 * A deep keyset page reached as a client would: page 1 of the keyset list, then its `Link: rel="next"`. When that link
 * carries a cursor (`id_after`/`id_before`, GitLab's), the cursor is moved to the middle of the table; otherwise
 * (a service that answers keyset requests with offset pages) the link is followed `hops` times.
 */
async function followNext(url, headers, { midId, hops }) {
  let current = url;
  for (let hop = 0; hop < hops; hop++) {
    const response = await fetch(current, { headers, signal: AbortSignal.timeout(60_000) }).catch(() => null);
    if (!response) return { url: current, note: "no answer" };
    await response.arrayBuffer();
    const next = /<([^>]+)>;\s*rel="next"/.exec(response.headers.get("link") ?? "")?.[1];
    if (!next) return { url: current, note: `no rel="next" after ${hop} hops (${response.status})` };
    const nextUrl = new URL(next);
    const cursor = ["id_after", "id_before"].find((name) => nextUrl.searchParams.has(name));
    if (cursor && midId) {
      nextUrl.searchParams.set(cursor, String(midId));
      return { url: nextUrl.toString(), note: `${cursor}=${midId}` };
    }
    current = nextUrl.toString();
  }
  return { url: current, note: `rel="next" followed ${hops} times` };
}

/**
 * The lists, each with its pages. `url(viewer)` gives a page's URL (possibly async, for keyset pages found by
 * following links); `surface` says how viewers authenticate.
 */
export function matrixLists(server, setup) {
  const { layout, project, prolific, ids, bigIssueIid } = setup;
  const api = `${server.base}/api/v4`;
  const projectPath = project.path_with_namespace;
  const keysetEvents = (path, midId) => `${api}${path}${path.includes("?") ? "&" : "?"}pagination=keyset&per_page=20&id_before=${midId}`;
  const offset = (path, page) => `${api}${path}${path.includes("?") ? "&" : "?"}page=${page}&per_page=20`;
  const linkHops = setup.quick ? 3 : 10;
  const lists = [
    {
      name: "project events",
      surface: "api",
      pages: [
        { label: "page 1", url: () => `${api}/projects/${project.id}/events` },
        { label: "keyset, mid-table", url: () => keysetEvents(`/projects/${project.id}/events`, ids.midEventId) },
        { label: `page ${deepPage(layout.events)}`, url: () => offset(`/projects/${project.id}/events`, deepPage(layout.events)) },
      ],
    },
    {
      name: "user events (prolific author)",
      surface: "api",
      pages: [
        { label: "page 1", url: () => `${api}/users/${prolific.id}/events` },
        { label: "keyset, mid-table", url: () => keysetEvents(`/users/${prolific.id}/events`, ids.midProlificEventId) },
      ],
    },
    {
      name: "/events (own)",
      surface: "api",
      pages: [
        { label: "page 1", url: () => `${api}/events` },
        { label: "keyset, mid-table", url: () => keysetEvents("/events", ids.midEventId) },
      ],
    },
    {
      name: "/events?scope=all",
      surface: "api",
      pages: [
        { label: "page 1", url: () => `${api}/events?scope=all` },
        { label: "keyset, mid-table", url: () => keysetEvents("/events?scope=all", ids.midEventId) },
        // An offset page past the first: each of the reader's projects then gives more rows unless the walk of the
        // newest events answers it.
        { label: "page 5", url: () => offset("/events?scope=all", 5) },
      ],
    },
    {
      name: "/projects",
      surface: "api",
      pages: [
        { label: "page 1", url: () => `${api}/projects` },
        { label: `page ${deepPage(layout.projects)}`, url: () => offset("/projects", deepPage(layout.projects)) },
        {
          label: "keyset, deep",
          url: (headers) => followNext(`${api}/projects?pagination=keyset&order_by=id&sort=desc&per_page=20`, headers, { midId: ids.midProjectId, hops: linkHops }),
        },
      ],
    },
    {
      name: "/groups",
      surface: "api",
      pages: [
        { label: "page 1", url: () => `${api}/groups` },
        { label: `page ${deepPage(layout.groups * 2)}`, url: () => offset("/groups", deepPage(layout.groups * 2)) },
        { label: "min_access_level=10", url: () => `${api}/groups?min_access_level=10` },
      ],
    },
    {
      name: "/namespaces",
      surface: "api",
      pages: [{ label: "page 1", url: () => `${api}/namespaces` }],
    },
    {
      name: "group projects (with subgroups)",
      surface: "api",
      pages: [{ label: "page 1", url: () => `${api}/groups/${ids.firstGroupId}/projects?include_subgroups=true` }],
    },
    {
      name: "group issues",
      surface: "api",
      pages: [{ label: "page 1", url: () => `${api}/groups/${ids.firstGroupId}/issues` }],
    },
    {
      name: "group members (with inherited)",
      surface: "api",
      pages: [{ label: "page 1", url: () => `${api}/groups/${ids.midGroupId}/members/all` }],
    },
    {
      name: "/users",
      surface: "api",
      pages: [
        { label: "page 1", url: () => `${api}/users` },
        { label: `page ${deepPage(layout.users)}`, url: () => offset("/users", deepPage(layout.users)) },
        {
          label: "keyset, deep",
          url: (headers) => followNext(`${api}/users?pagination=keyset&order_by=id&sort=desc&per_page=20`, headers, { midId: ids.midUserId, hops: linkHops }),
        },
      ],
    },
    {
      name: "project members",
      surface: "api",
      pages: [
        { label: "page 1", url: () => `${api}/projects/${project.id}/members` },
        { label: `page ${deepPage(layout.members)}`, url: () => offset(`/projects/${project.id}/members`, deepPage(layout.members)) },
      ],
    },
    {
      name: "project issues",
      surface: "api",
      pages: [
        { label: "page 1", url: () => `${api}/projects/${project.id}/issues` },
        { label: `page ${deepPage(layout.bigIssues)}`, url: () => offset(`/projects/${project.id}/issues`, deepPage(layout.bigIssues)) },
      ],
    },
    {
      name: "/issues?scope=all",
      surface: "api",
      pages: [
        { label: "page 1", url: () => `${api}/issues?scope=all` },
        { label: `page ${deepPage(layout.bigIssues + layout.otherIssues)}`, url: () => offset("/issues?scope=all", deepPage(layout.bigIssues + layout.otherIssues)) },
      ],
    },
    {
      name: "notes of the big issue",
      surface: "api",
      pages: [
        { label: "page 1", url: () => `${api}/projects/${project.id}/issues/${bigIssueIid}/notes` },
        {
          label: `page ${deepPage(layout.notes / 50)}`,
          url: () => offset(`/projects/${project.id}/issues/${bigIssueIid}/notes`, deepPage(layout.notes / 50)),
        },
      ],
    },
    {
      name: "labels",
      surface: "api",
      pages: [
        { label: "page 1", url: () => `${api}/projects/${project.id}/labels` },
        { label: `page ${deepPage(layout.labels)}`, url: () => offset(`/projects/${project.id}/labels`, deepPage(layout.labels)) },
      ],
    },
    {
      name: "milestones",
      surface: "api",
      pages: [
        { label: "page 1", url: () => `${api}/projects/${project.id}/milestones` },
        { label: `page ${deepPage(layout.milestones)}`, url: () => offset(`/projects/${project.id}/milestones`, deepPage(layout.milestones)) },
      ],
    },
    {
      name: "alert integrations",
      surface: "api",
      pages: [{ label: "page 1", url: () => `${api}/projects/${project.id}/alert_management/integrations` }],
    },
    {
      name: "alerts",
      surface: "api",
      pages: [
        { label: "page 1", url: () => `${api}/projects/${project.id}/alert_management/alerts` },
        { label: `page ${deepPage(layout.alerts)}`, url: () => offset(`/projects/${project.id}/alert_management/alerts`, deepPage(layout.alerts)) },
        // None of the seeded alerts is silenced: the filter must not read past all of them to say so.
        { label: "silenced, page 1", url: () => `${api}/projects/${project.id}/alert_management/alerts?silenced=true` },
        // All of them are unsilenced: the filter's page is read from the unsilenced alerts' own index, as the unfiltered
        // list's is from the project's.
        { label: "not silenced, page 1", url: () => `${api}/projects/${project.id}/alert_management/alerts?silenced=false` },
      ],
    },
    {
      name: "alert silences",
      surface: "api",
      pages: [{ label: "page 1", url: () => `${api}/projects/${project.id}/alert_management/silences` }],
    },
    {
      name: "activity page",
      surface: "page",
      pages: [{ label: "page 1", url: () => `${server.base}/${projectPath}/activity` }],
    },
    {
      name: "activity.atom",
      surface: "feed",
      pages: [{ label: "page 1", url: () => `${server.base}/${projectPath}/activity.atom` }],
    },
    {
      name: "user profile page",
      surface: "page",
      pages: [{ label: "page 1", url: () => `${server.base}/${prolific.username}` }],
    },
    {
      name: "user feed (.atom)",
      surface: "feed",
      pages: [{ label: "page 1", url: () => `${server.base}/${prolific.username}.atom` }],
    },
    {
      name: "issue list page",
      surface: "page",
      pages: [
        { label: "page 1", url: () => `${server.base}/${projectPath}/-/issues` },
        // About two thirds of the issues are open, which is what the page lists first.
        { label: `page ${deepPage((layout.bigIssues * 2) / 3)}`, url: () => `${server.base}/${projectPath}/-/issues?page=${deepPage((layout.bigIssues * 2) / 3)}` },
      ],
    },
    {
      name: "alert list page",
      surface: "page",
      pages: [
        { label: "page 1", url: () => `${server.base}/${projectPath}/-/alert_management` },
        // The open tab: triggered and acknowledged alerts, three in ten.
        { label: `page ${deepPage(layout.alerts * 0.3)}`, url: () => `${server.base}/${projectPath}/-/alert_management?page=${deepPage(layout.alerts * 0.3)}` },
      ],
    },
  ];
  // A list too short for a second page has only its first.
  for (const list of lists) list.pages = list.pages.filter((page, index) => index === 0 || page.label !== "page 1");
  return lists;
}

/**
 * One request, timed, with a deadline. Redirects are answers too (an anonymous visitor sent to sign in), not followed.
 */
async function timedRequest(url, headers, timeoutMs) {
  const startedAt = performance.now();
  try {
    const response = await fetch(url, { headers, redirect: "manual", signal: AbortSignal.timeout(timeoutMs) });
    await response.arrayBuffer();
    return { status: response.status, ms: performance.now() - startedAt };
  } catch {
    return { status: null, ms: performance.now() - startedAt, timedOut: true };
  }
}

const percentile = (sorted, fraction) => sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * fraction) - 1)];

/**
 * Waits until the server has nothing left of what was sent before: PostgreSQL queries still running after a moment
 * are cancelled (the embedded database cannot cancel a statement), then readiness, which goes through the event loop
 * and the database, must answer quickly again. Gives up after `timeoutMs`; returns whether it settled.
 */
export async function settle(server, db, timeoutMs = 600_000) {
  if (db) {
    const others = `pid <> pg_backend_pid() and datname = current_database() and state = 'active' and backend_type = 'client backend'`;
    const deadline = Date.now() + 5_000;
    let active = 1;
    while (active > 0 && Date.now() < deadline) {
      [{ active }] = await db.unsafe(`select count(*)::int as active from pg_stat_activity where ${others}`);
      if (active > 0) await sleep(100);
    }
    if (active > 0) await db.unsafe(`select pg_cancel_backend(pid) from pg_stat_activity where ${others}`);
  }
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const probe = await timedRequest(`${server.base}/-/readiness`, {}, 5_000);
    if (probe.status === 200 && probe.ms < 100) return true;
    await sleep(200);
  }
  return false;
}

/**
 * Requests one after another, for a cell too slow to load: the probe that found it slow, then more until there are
 * `count` or `budgetMs` has passed. CPU is counted over the requests after the probe.
 */
async function measureSequentially(url, headers, server, probe, { count, budgetMs, timeoutMs }) {
  const pids = processTree(server.pid);
  const databasePids = server.databasePids ? await server.databasePids() : [];
  const cpuBefore = cpuSeconds(pids);
  const databaseCpuBefore = cpuSeconds(databasePids);
  const startedAt = performance.now();
  const samples = [probe];
  while (samples.length < count && performance.now() - startedAt < budgetMs) {
    const sample = await timedRequest(url, headers, timeoutMs);
    samples.push(sample);
    if (sample.timedOut) break;
  }
  const sorted = samples.map((sample) => sample.ms).sort((a, b) => a - b);
  const measuredAfterProbe = samples.length - 1;
  return {
    mode: samples.some((sample) => sample.timedOut) ? "timeout" : "sequential",
    requests: samples.length,
    rps: measuredAfterProbe ? measuredAfterProbe / ((performance.now() - startedAt) / 1000) : 1000 / probe.ms,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    non2xx: samples.filter((sample) => !(sample.status >= 200 && sample.status < 300)).length,
    cpuPerRequest: perRequest(cpuSeconds(pids) - cpuBefore, measuredAfterProbe, pids),
    databaseCpuPerRequest: perRequest(cpuSeconds(databasePids) - databaseCpuBefore, measuredAfterProbe, databasePids),
  };
}

/**
 * Measures one cell: a first request (its status is the cell's), then a load of `settings.connections` for
 * `settings.duration` s after `settings.warmUp` s, or, when that first request took over `sequentialAboveMs`, a few
 * requests in a row.
 */
export async function measureCell(server, db, url, headers, settings) {
  // The first request of a URL pays for what is cold (a statement to prepare, code to load): the second is the probe.
  const first = await timedRequest(url, headers, settings.timeoutMs);
  const probe = first.timedOut ? first : await timedRequest(url, headers, settings.timeoutMs);
  let cell;
  if (probe.timedOut) {
    cell = { mode: "timeout", requests: 1, p50: probe.ms, p99: probe.ms, non2xx: 1 };
  } else {
    const sequentially = () =>
      measureSequentially(url, headers, server, probe, { count: settings.sequentialRequests, budgetMs: settings.sequentialBudgetMs, timeoutMs: settings.timeoutMs });
    if (probe.ms > settings.sequentialAboveMs) {
      cell = await sequentially();
    } else {
      const load = { url, headers, connections: settings.connections, timeout: Math.ceil(settings.timeoutMs / 1000) };
      if (settings.warmUp) await measureLoad({ ...load, duration: settings.warmUp });
      const { result, cpuPerRequest, databaseCpuPerRequest } = await measureLoad({ ...load, duration: settings.duration }, server);
      cell = {
        mode: "load",
        requests: result.requests.total,
        rps: result.requests.average,
        p50: result.latency.p50,
        p99: result.latency.p99,
        non2xx: result.non2xx + result.errors + result.timeouts,
        cpuPerRequest,
        databaseCpuPerRequest,
      };
      // Fewer answers than connections: the load's requests took longer than the run, so its percentiles hold only the
      // few that got through. The server finishes what is in flight, then the cell is measured one request at a time.
      if (result.requests.total < settings.connections) {
        await settle(server, db);
        cell = { ...(await sequentially()), overloaded: result.requests.total };
      }
    }
  }
  await settle(server, db);
  return { ...cell, status: probe.status };
}

/**
 * Runs the matrix on one server and prints each cell as it goes. `viewers` narrows who is measured (`pageOne`,
 * `deep`); liveness is measured before each list, or once with `livenessPerList` false.
 */
export async function runMatrix(server, db, setup, settings, { log, only, viewers, livenessPerList }) {
  const rows = [];
  let liveness = null;
  for (const list of matrixLists(server, setup)) {
    if (only && !only.some((part) => list.name.includes(part) || "scale matrix".includes(part))) continue;
    if (livenessPerList || !liveness) liveness = await measureCell(server, db, `${server.base}/-/liveness`, {}, settings);
    log(`  ${list.name} (liveness ${format(liveness.p50)}/${format(liveness.p99)} ms)`);
    for (const [pageIndex, page] of list.pages.entries()) {
      const row = { list: list.name, page: page.label, pageOne: pageIndex === 0, liveness, cells: {} };
      const kinds = pageIndex === 0 ? (viewers?.pageOne ?? viewerKinds) : (viewers?.deep ?? deepPageViewers);
      for (const kind of kinds) {
        const viewer = setup.viewers[kind];
        const { headers, query } = credentialsFor(viewer, list.surface);
        const resolved = await page.url(headers);
        const url = withQuery(typeof resolved === "string" ? resolved : resolved.url, query);
        const cell = await measureCell(server, db, url, headers, settings);
        if (typeof resolved !== "string") cell.note = resolved.note;
        row.cells[kind] = cell;
        log(`    ${page.label}, ${kind}: ${describeCell(cell)}${cell.note ? ` (${cell.note})` : ""}`);
      }
      if (kinds.length) rows.push(row);
    }
  }
  return rows;
}

/** A cell as the compact table shows it: `p50/p99` in ms, the status when it is not 2xx, `*` when measured in a row. */
function describeCell(cell) {
  if (!cell) return "";
  if (cell.mode === "timeout") return `> ${format(cell.p99 / 1000)} s timeout`;
  const status = cell.status >= 200 && cell.status < 300 ? (cell.non2xx ? ` (${cell.non2xx} non-2xx)` : "") : ` ‹${cell.status}›`;
  const mark = cell.overloaded !== undefined ? "**" : cell.mode === "sequential" ? "*" : "";
  return `${format(cell.p50)}/${format(cell.p99)}${mark}${status}`;
}

/** The compact table (rows: list × page; columns: viewers) and the per-cell detail with throughput and CPU. */
export function matrixReport(rows, { heading, databaseCpu }) {
  const compact = [
    `| list | page | ${viewerKinds.join(" | ")} | liveness p50/p99 | worst p50 ÷ liveness p50 |`,
    `|---|---|${viewerKinds.map(() => "---:").join("|")}|---:|---:|`,
  ];
  for (const row of rows) {
    const cells = viewerKinds.map((kind) => describeCell(row.cells[kind]));
    const worst = Math.max(...Object.values(row.cells).map((cell) => cell.p50));
    compact.push(
      `| ${row.list} | ${row.page} | ${cells.join(" | ")} | ${format(row.liveness.p50)}/${format(row.liveness.p99)} | ${format(worst / Math.max(row.liveness.p50, 1), 1)}× |`,
    );
  }
  const detail = [
    `| list | page | viewer | status | req/s | p50 ms | p99 ms | requests | non-2xx | CPU µs/req |${databaseCpu ? " PostgreSQL CPU µs/req |" : ""}`,
    `|---|---|---|---:|---:|---:|---:|---:|---:|---:|${databaseCpu ? "---:|" : ""}`,
  ];
  for (const row of rows) {
    for (const [kind, cell] of Object.entries(row.cells)) {
      detail.push(
        `| ${row.list} | ${row.page} | ${kind} | ${cell.status ?? "–"} | ${format(cell.rps, 1)} | ${format(cell.p50, 1)} | ${format(cell.p99, 1)} | ${cell.requests} | ${cell.non2xx} | ` +
          `${format(cell.cpuPerRequest)} |${databaseCpu ? ` ${format(cell.databaseCpuPerRequest)} |` : ""}`,
      );
    }
  }
  return [
    `### ${heading}`,
    "",
    "Each cell is `p50/p99` in ms; `‹status›` when the answer is not 2xx (every request of the cell is then counted as non-2xx);",
    "`*` when the first request took over the matrix's p99 limit and the cell was measured with requests one after another;",
    "`**` when under load fewer requests were answered than there were connections, and the cell was then measured so;",
    "`timeout` when a request did not answer in time (its query was then cancelled).",
    "",
    ...compact,
    "",
    "<details><summary>Every cell: throughput and CPU per request</summary>",
    "",
    ...detail,
    "",
    "</details>",
  ].join("\n");
}

const cellName = (row, kind) => `${row.list} ${row.page} as ${kind}`;

/** The targets, as `[what, met, value]`: judged on every cell they cover, with the worst cells named. */
export function matrixVerdicts(rows, { prefix, embedded }) {
  const verdicts = [];
  const judge = (what, cells, passes, show) => {
    const failing = cells.filter(([row, , cell]) => !passes(row, cell));
    const worst = failing
      .slice(0, 5)
      .map(([row, kind, cell]) => `${cellName(row, kind)}: ${show(row, cell)}`)
      .join("; ");
    verdicts.push([`${prefix}${what}`, failing.length === 0, failing.length ? `${failing.length} of ${cells.length} cells over: ${worst}` : `${cells.length} cells`]);
  };
  const all = rows.flatMap((row) => Object.entries(row.cells).map(([kind, cell]) => [row, kind, cell]));
  const pageOne = all.filter(([row]) => row.pageOne);
  const ratio = (row, cell) => cell.p50 / Math.max(row.liveness.p50, 1);
  // A refusal (401, 403, 405) is an answer; a server error never is, however fast.
  judge("no cell answers with a server error", all, (row, cell) => !(cell.status >= 500), (row, cell) => `‹${cell.status}›`);
  if (embedded) {
    judge(`every cell's p50 within ${matrixTargets.embeddedP50Ratio}× liveness p50`, all, (row, cell) => cell.mode !== "timeout" && ratio(row, cell) <= matrixTargets.embeddedP50Ratio, (row, cell) => `${format(ratio(row, cell), 1)}×`);
    return verdicts;
  }
  judge(
    `every viewer's page 1 p50 ≤ ${matrixTargets.pageOneP50Ratio}× liveness p50`,
    pageOne,
    (row, cell) => cell.mode !== "timeout" && ratio(row, cell) <= matrixTargets.pageOneP50Ratio,
    (row, cell) => `${format(cell.p50)} ms = ${format(ratio(row, cell), 1)}×`,
  );
  judge(`every viewer's page 1 p99 ≤ ${matrixTargets.pageOneP99Ms} ms`, pageOne, (row, cell) => cell.mode !== "timeout" && cell.p99 <= matrixTargets.pageOneP99Ms, (row, cell) => `${format(cell.p99)} ms`);
  judge(`no list request in the matrix over ${matrixTargets.anyP99Ms} ms p99`, all, (row, cell) => cell.mode !== "timeout" && cell.p99 <= matrixTargets.anyP99Ms, (row, cell) => `${format(cell.p99)} ms`);
  return verdicts;
}
