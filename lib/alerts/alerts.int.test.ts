import { describe, expect, it } from "vitest";
import { ConflictError } from "@/lib/errors";
import { createProject } from "@/lib/projects/projects";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { createTestUser, uniqueSuffix, userContext } from "@/lib/testing/fixtures";
import { getAlert, updateAlertStatus } from "./alerts";
import { createIntegration } from "./integrations";
import { applyPayload } from "./receive";

describe.each(testDatabases())("alert triage on $name", ({ open }) => {
  const handle = databaseForSuite(open);

  const now = new Date("2026-03-01T12:00:00Z");

  async function projectWithResolvedTwins() {
    const owner = await createTestUser(handle.db);
    const ctx = userContext(handle.db, owner);
    const { project } = await createProject(ctx, { name: `Triage ${uniqueSuffix()}` });
    const reference = String(project.id);
    const { integration } = await createIntegration(ctx, reference, { name: "Monitor", type: "http", active: true });
    for (let round = 0; round < 2; round++) {
      await applyPayload(handle.db, integration, { title: "Twin", fingerprint: "twin" }, now);
      await applyPayload(handle.db, integration, { fingerprint: "twin", end_time: "2026-03-01T12:30:00Z" }, now);
    }
    return { ctx, reference };
  }

  it("records who changed the status, as GitLab's system note", async () => {
    const { ctx, reference } = await projectWithResolvedTwins();
    await updateAlertStatus(ctx, reference, 1, "acknowledged");
    const { alert, notes } = await getAlert(ctx, reference, 1);
    expect(alert).toMatchObject({ status: "acknowledged", endedAt: null });
    expect(notes.at(-1)).toMatchObject({ body: "changed the status to **Acknowledged**", authorUsername: ctx.actor.kind === "user" ? ctx.actor.user.username : "" });
  });

  it("reopens only one of two resolved alerts with one fingerprint, even when both are reopened at once", async () => {
    const { ctx, reference } = await projectWithResolvedTwins();
    const results = await Promise.allSettled([
      updateAlertStatus(ctx, reference, 1, "triggered"),
      updateAlertStatus(ctx, reference, 2, "triggered"),
    ]);
    expect(results.filter((result) => result.status === "fulfilled")).toHaveLength(1);
    const refused = results.find((result) => result.status === "rejected");
    expect(refused?.reason).toBeInstanceOf(ConflictError);
    expect((refused?.reason as Error).message).toBe(
      "An alert with the same fingerprint is already open. To change the status of this alert, resolve the linked alert.",
    );
  });
});
