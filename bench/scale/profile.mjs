// `npm run bench -- --scale`: the scale matrix on PostgreSQL over 10 000 000 events in one public project (with
// 100 000 users and projects and about 1 000 000 issues), the hostile mix on the same server, then the matrix on the
// embedded database over 1 000 000 events. `--quick` runs the same on tiny data with one-second cells.
//
//   --scale-events=<n>           events in the big project on PostgreSQL (default 10 000 000; the rest scales with it)
//   --scale-embedded-events=<n>  the same on the embedded database (default 1 000 000; 0 skips it)
//   --scale-cell=<s>             seconds measured per cell (default 2, after 1 s of warm-up)
//   --scale-skip-hostile         no hostile mix
//   --scale-keep                 keep the PostgreSQL database (its name is printed) to look at plans afterwards
//   --scale-seed-only            seed (and time it), then stop: with --scale-keep, to look at plans on the full data
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import postgres from "postgres";
import { format, onCleanUp, postgresBackendsOf, removeWhenDone, root, serviceEnvironment, startService } from "../harness.mjs";
import { hostileTargets, runHostileMix } from "./hostile.mjs";
import { matrixReport, matrixTargets, matrixVerdicts, runMatrix, settle } from "./matrix.mjs";
import { scaleLayout, seedScale } from "./seed.mjs";
import { createViewersAndProject, feedTokenStatements, signInViewers } from "./viewers.mjs";

function settingsFor(quick, args) {
  const cellSeconds = Number(args.get("scale-cell") ?? 2);
  return quick
    ? {
        cells: { connections: 8, warmUp: 0, duration: 1, timeoutMs: 10_000, sequentialAboveMs: matrixTargets.anyP99Ms, sequentialRequests: 2, sequentialBudgetMs: 3_000 },
        // Fewer viewers on tiny data: enough to run every list and page once.
        viewers: { pageOne: ["non-member", "anonymous"], deep: ["non-member"], embeddedPageOne: ["anonymous"], embeddedDeep: [] },
        livenessPerList: false,
        hostile: { duration: 2, warmUp: 1, ordinaryConnections: 4, livenessConnections: 1, hostileTimeoutMs: 5_000, recoveryTimeoutMs: 10_000 },
        integrations: 3,
      }
    : {
        cells: { connections: 32, warmUp: 1, duration: cellSeconds, timeoutMs: 15_000, sequentialAboveMs: matrixTargets.anyP99Ms, sequentialRequests: 3, sequentialBudgetMs: 15_000 },
        viewers: null,
        livenessPerList: true,
        hostile: { duration: 20, warmUp: 3, ordinaryConnections: 16, livenessConnections: 2, hostileTimeoutMs: 30_000, recoveryTimeoutMs: 120_000 },
        integrations: 20,
      };
}

const minutes = (startedAt) => (performance.now() - startedAt) / 60_000;

/** Sets up, seeds and restarts one server, then runs the matrix (and, on PostgreSQL, the hostile mix) on it. */
async function runOnDatabase({ label, port, database, events, credentials, settings, quick, only, log, seed, openDatabase }) {
  const layout = scaleLayout(events);
  const environment = { ...serviceEnvironment(credentials), ...database };
  log(`${label}: ${events} events in the big project, ${layout.users} users, ${layout.projects} projects, ${layout.bigIssues + layout.otherIssues} issues`);
  let server = await startService(`the service on ${label}`, port, environment);
  const created = await createViewersAndProject(server.base, credentials, { integrations: settings.integrations });
  await server.stop();

  const seedingStartedAt = performance.now();
  const seeded = await seed(layout, {
    projectId: created.project.id,
    ownerId: created.viewers.owner.id,
    reporterId: created.viewers.reporter.id,
    guestId: created.viewers.guest.id,
    externalId: created.viewers.external.id,
    prolificId: created.prolific.id,
    rootId: created.rootId,
    integrationId: created.integrations[0].id,
    passwordHashOf: created.passwordHashOf,
  }, feedTokenStatements(created.viewers));
  const seedingSeconds = (performance.now() - seedingStartedAt) / 1000;
  log(`  seeded in ${format(seedingSeconds)} s (${seeded.ids.totalEvents} events in all; ids ${JSON.stringify(seeded.ids)})`);

  if (settings.seedOnly) return { layout, seeded, seedingSeconds, rows: [], matrixMinutes: 0, hostile: null };

  server = await startService(`the service on ${label}`, port, environment, { readyTimeoutMs: 600_000 });
  const db = await openDatabase?.();
  if (db) server.databasePids = () => postgresBackendsOf(db);
  await signInViewers(server.base, created.viewers, credentials);
  const setup = { ...created, layout, ids: seeded.ids, bigIssueIid: 1, quick };

  const matrixStartedAt = performance.now();
  const rows = await runMatrix(server, db, setup, settings.cells, { log, only, viewers: settings.viewers, embedded: !db, livenessPerList: settings.livenessPerList });
  const matrixMinutes = minutes(matrixStartedAt);

  let hostile = null;
  if (db && !settings.skipHostile && (!only || only.some((part) => "hostile mix".includes(part)))) {
    log("Hostile mix:");
    hostile = await runHostileMix(server, setup, settings.hostile, { log, afterPhase: () => settle(server, db, settings.hostile.recoveryTimeoutMs) });
  }
  await server.stop();
  return { layout, seeded, seedingSeconds, rows, matrixMinutes, hostile };
}

/** Runs the profile; prints and returns its report (written to bench/results/scale.md for a full run). */
export async function runScaleProfile({ serverUrl, ports, credentials, args, quick, only = null }) {
  const startedAt = performance.now();
  const settings = { ...settingsFor(quick, args), skipHostile: args.has("scale-skip-hostile"), seedOnly: args.has("scale-seed-only") };
  const log = (line) => console.log(line);
  const postgresEvents = Number(args.get("scale-events") ?? (quick ? 20_000 : 10_000_000));
  const embeddedEvents = Number(args.get("scale-embedded-events") ?? (quick ? 10_000 : 1_000_000));
  console.log(quick ? "\nScale matrix and hostile mix (quick: tiny data, one-second cells):" : "Scale matrix and hostile mix:");

  // PostgreSQL: a database of its own, seeded over two connections (index builds and event slices in parallel).
  const databaseName = `bench_scale_${Date.now()}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${databaseName}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${databaseName}`;
  const databaseUrl = url.toString();
  const clients = [];
  const client = (max) => {
    const opened = postgres(databaseUrl, { max, onnotice: () => {}, idle_timeout: 0 });
    clients.push(opened);
    return opened;
  };
  onCleanUp(async () => {
    for (const opened of clients) await opened.end().catch(() => {});
    if (args.has("scale-keep")) console.log(`Kept the database ${databaseName}.`);
    else await admin.unsafe(`drop database if exists "${databaseName}" with (force)`);
    await admin.end();
  });

  const postgresRun = await runOnDatabase({
    label: "PostgreSQL",
    port: ports.postgres,
    database: { DATABASE_URL: databaseUrl },
    events: postgresEvents,
    credentials,
    settings,
    quick,
    only,
    log,
    openDatabase: async () => client(2),
    seed: async (layout, context, feedTokens) => {
      const first = client(1);
      const second = client(1);
      const query = (text) => first.unsafe(text);
      const result = await seedScale(query, layout, context, { parallelQuery: (text) => second.unsafe(text), log });
      for (const statement of feedTokens) await query(statement);
      await first.end();
      await second.end();
      return result;
    },
  });

  let embeddedRun = null;
  if (embeddedEvents > 0 && (!only || only.some((part) => "scale matrix".includes(part)))) {
    const dataDir = mkdtempSync(path.join(tmpdir(), "bench-scale-pglite-"));
    removeWhenDone(dataDir);
    embeddedRun = await runOnDatabase({
      label: "the embedded database",
      port: ports.embedded,
      database: { DATABASE_URL: undefined, DATA_DIR: dataDir },
      events: embeddedEvents,
      credentials,
      settings: { ...settings, viewers: quick ? { pageOne: settings.viewers.embeddedPageOne, deep: settings.viewers.embeddedDeep } : null },
      quick,
      only,
      log,
      // The server holds the data directory while it runs: the seed opens it in between two starts, as lib/db does.
      seed: async (layout, context, feedTokens) => {
        const { PGlite } = await import("@electric-sql/pglite");
        const pglite = new PGlite(dataDir);
        const query = async (text) => (await pglite.query(text)).rows;
        const result = await seedScale(query, layout, context, { log });
        for (const statement of feedTokens) await query(statement);
        await pglite.close();
        return result;
      },
    });
  }

  const verdicts = [
    ...matrixVerdicts(postgresRun.rows, { prefix: `PostgreSQL, ${postgresEvents} events: ` }),
    ...(embeddedRun ? matrixVerdicts(embeddedRun.rows, { prefix: `embedded, ${embeddedEvents} events: `, embedded: true }) : []),
    ...(postgresRun.hostile?.verdicts ?? []),
  ];
  const seedingLine = (run, name) =>
    `${name}: seeded in ${format(run.seedingSeconds)} s (${run.seeded.steps.map((step) => `${step.name} ${format(step.seconds, 1)} s`).join("; ")}); matrix ${format(run.matrixMinutes, 1)} min`;
  const report = [
    matrixReport(postgresRun.rows, { heading: `Scale matrix on PostgreSQL (${postgresEvents} events in one public project)`, databaseCpu: true }),
    "",
    ...(embeddedRun ? [matrixReport(embeddedRun.rows, { heading: `Scale matrix on the embedded database (PGlite, ${embeddedEvents} events)`, databaseCpu: false }), ""] : []),
    ...(postgresRun.hostile ? [`### Hostile mix (PostgreSQL, ${postgresEvents} events)`, "", ...postgresRun.hostile.lines, ""] : []),
    ...verdicts.map(([what, met, value]) => `- ${met ? "met" : "NOT met"}: ${what} (${value})`),
    "",
    seedingLine(postgresRun, "PostgreSQL"),
    ...(embeddedRun ? [seedingLine(embeddedRun, "Embedded database")] : []),
    `Cells: ${settings.cells.connections} connections, ${settings.cells.warmUp} s of warm-up then ${settings.cells.duration} s; ` +
      `a cell whose first request takes over ${settings.cells.sequentialAboveMs} ms is measured with up to ${settings.cells.sequentialRequests} requests in a row; ` +
      `requests time out after ${settings.cells.timeoutMs / 1000} s. Hostile mix: ${settings.hostile.duration} s per phase; targets: liveness p99 ≤ ` +
      `${hostileTargets.livenessP99Ms} ms, ordinary p99 ≤ ${hostileTargets.ordinaryP99Ratio}× alone. Whole profile ${format(minutes(startedAt), 1)} min.`,
  ].join("\n");
  console.log(`\n${report}\n`);
  if (!quick && !only && !settings.seedOnly) {
    mkdirSync(path.join(root, "bench", "results"), { recursive: true });
    writeFileSync(path.join(root, "bench", "results", "scale.md"), `${report}\n`);
  }
  return report;
}
