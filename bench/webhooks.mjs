// Webhooks under load: what ten hooks on a project (half of them to a receiver that takes 2 s to answer) cost the
// requests that cause their deliveries, and how soon the deliveries reach a receiver that answers at once.
//
// - Issue creation and new alerts that open incidents (each sends an issue hook) are measured on a project without
//   hooks and then on one with ten; the second must keep 90 % of the first's throughput. Deliveries are sent by the
//   serving process itself (its outbox worker), so their cost shows.
// - At a fixed 200 issues a second on the project with hooks, the lag of each delivery to the quick receivers (from
//   the answer to the request that created the issue to the delivery's arrival) must stay under 1 s at p99, while
//   the slow hooks' deliveries queue behind each other (in order per hook) and must not hold up the quick ones. The
//   same at half that rate tells a machine that cannot create 200 issues a second (the lag then is the queue of a
//   saturated server) from one that delivers slowly.
import { createServer } from "node:http";

const hooksPerProject = 10;
const slowAnswerMs = 2_000;
const lagRate = 200;

/** Nearest-rank percentile of sorted numbers. */
function percentile(sorted, fraction) {
  if (sorted.length === 0) return undefined;
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)];
}

/**
 * A receiver for the hooks: `/quick/<n>` answers 200 at once and notes when each issue's delivery came; `/slow/<n>`
 * answers after `slowAnswerMs`.
 */
async function startReceiver(port) {
  /** `<hook n>:<issue iid>` → arrival time (ms, this process's clock). */
  const arrivals = new Map();
  const server = createServer((request, response) => {
    const chunks = [];
    request.on("data", (chunk) => chunks.push(chunk));
    request.on("end", () => {
      const [, kind, hook] = request.url.split("/");
      if (kind === "quick") {
        try {
          const { object_attributes: issue } = JSON.parse(Buffer.concat(chunks).toString("utf8"));
          arrivals.set(`${hook}:${issue.project_id}:${issue.iid}`, performance.now());
        } catch {
          // Not an issue hook (a test, say): nothing to time.
        }
        response.end("ok");
      } else {
        setTimeout(() => response.end("ok"), slowAnswerMs).unref();
      }
    });
  });
  server.keepAliveTimeout = 70_000;
  await new Promise((resolve) => server.listen(port, "127.0.0.1", resolve));
  return { arrivals, close: () => new Promise((resolve) => server.close(resolve)) };
}

/**
 * Seeds two projects (each with an HTTP alert integration that opens incidents) and ten hooks on the second, and
 * answers the scenarios for `runSection`. `api` calls the service as root; `db` is a postgres.js client of its
 * database; `run` measures one load (bench/run.mjs's).
 */
export async function webhookScenarios({ service, api, db, receiverPort, rootToken, alertPayload, profile, measured, unique }) {
  await api(service.base, "PUT", "/api/v4/application/settings", { allow_local_requests_from_web_hooks_and_services: true });
  const receiver = await startReceiver(receiverPort);
  const seedProject = async (name) => {
    const project = await api(service.base, "POST", "/api/v4/projects", { name, visibility: "private" });
    await api(service.base, "PUT", `/api/v4/projects/${project.id}/alert_management/settings`, { create_incident: true });
    const integration = await api(service.base, "POST", `/api/v4/projects/${project.id}/alert_management/integrations`, {
      name,
      type: "http",
      active: true,
    });
    return { project, integration };
  };
  const plain = await seedProject("bench-without-hooks");
  const hooked = await seedProject("bench-with-hooks");
  for (let n = 0; n < hooksPerProject; n++) {
    const kind = n % 2 === 0 ? "quick" : "slow";
    await api(service.base, "POST", `/api/v4/projects/${hooked.project.id}/hooks`, {
      url: `http://127.0.0.1:${receiverPort}/${kind}/${n}`,
      issues_events: true,
      push_events: false,
    });
  }
  const quickHooks = Math.ceil(hooksPerProject / 2);

  const issueCreation = (name, { project }, rest) => ({
    name,
    measured,
    before: drained,
    ...rest,
    options: {
      url: `${service.base}/api/v4/projects/${project.id}/issues`,
      method: "POST",
      headers: { "PRIVATE-TOKEN": rootToken, "Content-Type": "application/json" },
      requests: [{ setupRequest: (request) => ({ ...request, body: JSON.stringify({ title: `Issue ${unique()}`, description: "Seen under load." }) }) }],
      ...rest?.options,
    },
  });
  const newAlerts = (name, { integration }, rest) => ({
    name,
    measured,
    before: drained,
    ...rest,
    options: {
      url: integration.url,
      method: "POST",
      headers: { Authorization: `Bearer ${integration.token}`, "Content-Type": "application/json" },
      requests: [{ setupRequest: (request) => ({ ...request, body: alertPayload(`incident-${unique()}`) }) }],
    },
  });

  /** The quick hooks' deliveries still to come, by the outbox: those written, and the changes not yet fanned out to them. */
  const backlog = async () => {
    const [{ deliveries, changes }] = await db`
      select (select count(*) from outbox_messages m join project_hooks h on h.id = (m.payload->>'hookId')::bigint
               where h.project_id = ${hooked.project.id} and h.url like '%/quick/%')::int as deliveries,
             (select count(*) from outbox_messages where ordering_key = ${`web_hook_event:${hooked.project.id}`})::int as changes`;
    return { deliveries, changes };
  };
  const quickBacklog = async () => {
    const { deliveries, changes } = await backlog();
    return deliveries + changes * quickHooks;
  };
  const backlogCheck = async (row) => {
    const { deliveries, changes } = await backlog();
    row.check = `${deliveries} quick deliveries and ${changes} changes not yet fanned out still waiting when the run ended`;
  };
  /** Lets the quick hooks catch up first, so one scenario's deliveries never weigh on the next one's run. */
  const drained = async () => {
    const deadline = performance.now() + 120_000;
    while ((await quickBacklog()) > 0 && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 250));
  };

  /**
   * The lag of the quick hooks' deliveries at a fixed rate of issue creation: at the goal's rate, and at half of it,
   * which tells a machine that cannot create issues as fast as the goal's rate (it saturates) from one that is slow to
   * deliver.
   */
  const lagScenario = (rate, { closeReceiver }) => {
    /** Issue iid → when the answer that created it came (ms, this process's clock). */
    const created = new Map();
    return issueCreation(`webhook delivery lag at ${rate} issues/s`, hooked, {
      warmUp: false,
      options: {
        connections: Math.min(profile.connections, 16),
        overallRate: rate,
        requests: [
          {
            setupRequest: (request) => ({ ...request, body: JSON.stringify({ title: `Issue ${unique()}` }) }),
            onResponse: (status, body) => {
              if (status === 201) created.set(JSON.parse(body).iid, performance.now());
            },
          },
        ],
      },
      async afterRun(row) {
        const expected = created.size * quickHooks;
        const deadline = performance.now() + 60_000;
        const arrived = () => [...created.keys()].reduce((count, iid) => count + [...Array(hooksPerProject).keys()].filter((n) => receiver.arrivals.has(`${n}:${hooked.project.id}:${iid}`)).length, 0);
        while (arrived() < expected && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
        const lags = [];
        for (const [iid, at] of created) {
          for (let n = 0; n < hooksPerProject; n += 2) {
            const arrival = receiver.arrivals.get(`${n}:${hooked.project.id}:${iid}`);
            if (arrival !== undefined) lags.push(arrival - at);
          }
        }
        lags.sort((a, b) => a - b);
        const p99 = percentile(lags, 0.99);
        row.check = `${lags.length} of ${expected} quick deliveries arrived; lag p50 ${Math.round(percentile(lags, 0.5) ?? NaN)} ms, p99 ${Math.round(p99 ?? NaN)} ms`;
        row.checkPassed = lags.length === expected && p99 !== undefined && p99 <= 1_000;
        row.checkGoal = `webhook delivery lag p99 ≤ 1 s at ${rate} issues/s with ${hooksPerProject} hooks (half slow)`;
        if (closeReceiver) await receiver.close();
      },
    });
  };

  const withHooks = `${hooksPerProject} hooks, ${hooksPerProject - quickHooks} slow`;
  return [
    issueCreation("issue creation, no hooks", plain),
    issueCreation(`issue creation, ${withHooks}`, hooked, { goals: { baseline: { name: "issue creation, no hooks", ratio: 0.9 } }, afterRun: backlogCheck }),
    newAlerts("new alerts opening incidents, no hooks", plain),
    newAlerts(`new alerts opening incidents, ${withHooks}`, hooked, {
      goals: { baseline: { name: "new alerts opening incidents, no hooks", ratio: 0.9 } },
      afterRun: backlogCheck,
    }),
    lagScenario(lagRate / 2, { closeReceiver: false }),
    lagScenario(lagRate, { closeReceiver: true }),
  ];
}
