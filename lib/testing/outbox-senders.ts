import { rmSync } from "node:fs";
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import { createContext } from "@/lib/context";
import type { DatabaseHandle } from "@/lib/db/drivers";
import { updateInstanceSettings } from "@/lib/instance/settings";
import type { OutboxSender } from "@/lib/outbox/worker";
import { OutboxWorker } from "@/lib/outbox/worker";
import { createProject } from "@/lib/projects/projects";
import { forgetRateLimits } from "@/lib/rate-limits/rate-limits";
import { createTestUser, uniqueSuffix, userContext } from "./fixtures";

/**
 * What a suite of an outbox sender's tests shares: a worker with the sender's handlers (started only to deliver what
 * is waiting), the instance setting that lets requests reach the local receivers of the tests, projects with an owner,
 * rate limits counted afresh for each test, and the removal of the suite's repositories (`repositoriesRoot`) at its end.
 */
export function senderSuite(handle: DatabaseHandle, handlers: Record<string, OutboxSender>, { repositoriesRoot, projectName }: { repositoriesRoot: string; projectName: string }) {
  let worker: OutboxWorker;
  /** The instance setting "Allow requests to the local network from webhooks and integrations": the receivers are local. */
  async function allowLocalNetwork(allowed: boolean) {
    await updateInstanceSettings(createContext(handle.db, { kind: "system", job: "test" }), { allowLocalRequestsFromWebHooksAndServices: allowed });
  }

  beforeAll(async () => {
    await allowLocalNetwork(true);
    worker = new OutboxWorker(handle, { handlers, leaseMs: 60_000, concurrency: 4, pollMs: 60_000 });
  });
  // Ids repeat from one database to the next; the limits on requests sent by hand count by them.
  beforeEach(() => forgetRateLimits());
  afterEach(async () => {
    await worker.stop();
  });
  afterAll(() => {
    rmSync(repositoriesRoot, { recursive: true, force: true });
  });

  async function projectWithOwner() {
    const owner = await createTestUser(handle.db);
    const ctx = userContext(handle.db, owner);
    const view = await createProject(ctx, { name: `${projectName} ${uniqueSuffix()}` });
    return { owner, ctx, view, reference: String(view.project.id) };
  }

  /** Sends everything waiting (and what becomes due meanwhile), then stops. */
  async function deliverAll() {
    await worker.start();
    await worker.idle();
    await worker.stop();
  }

  return { allowLocalNetwork, projectWithOwner, deliverAll };
}
