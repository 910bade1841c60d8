import { describe, expect, it } from "vitest";
import { ForbiddenError, NotFoundError, ValidationError } from "@/lib/errors";
import { addMember } from "@/lib/projects/members";
import { createProject } from "@/lib/projects/projects";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { createTestUser, uniqueSuffix, userContext } from "@/lib/testing/fixtures";
import type { Ctx } from "@/lib/context";
import { createIntegration, getIntegration, listIntegrations, serializeIntegration, updateIntegration } from "./integrations";
import { getAlertSettingsPage } from "./settings-page";
import { updateAlertSettings } from "./settings";

describe.each(testDatabases())("alert settings page on $name", ({ open }) => {
  const handle = databaseForSuite(open);

  async function projectWithOwner() {
    const owner = await createTestUser(handle.db);
    const ctx = userContext(handle.db, owner);
    const { project } = await createProject(ctx, { name: `Alerts ${uniqueSuffix()}` });
    return { ctx, project, reference: String(project.id) };
  }

  it("gives Maintainers the integrations with their keys and the project's alert settings", async () => {
    const { ctx, reference } = await projectWithOwner();
    const empty = await getAlertSettingsPage(ctx, reference);
    expect(empty.integrations).toEqual([]);
    expect(empty.settings).toEqual({ createIncident: false, autoCloseIncident: true, sendEmail: false });

    await createIntegration(ctx, reference, { name: "First", type: "http", active: true });
    await createIntegration(ctx, reference, { name: "Second", type: "prometheus" });
    await updateAlertSettings(ctx, reference, { createIncident: true, sendEmail: true });
    const page = await getAlertSettingsPage(ctx, reference);
    expect(page.integrations.map((integration) => [integration.name, integration.type, integration.active])).toEqual([
      ["First", "http", true],
      ["Second", "prometheus", false],
    ]);
    expect(page.integrations[0]!.token).toMatch(/^[0-9a-f]{32}$/);
    expect(page.settings).toEqual({ createIncident: true, autoCloseIncident: true, sendEmail: true });
  });

  it("shows integration keys only to full-rights callers: sessions and `api` tokens, never `read_api` ones", async () => {
    const owner = await createTestUser(handle.db);
    const session = userContext(handle.db, owner);
    const { project } = await createProject(session, { name: `Alerts ${uniqueSuffix()}` });
    const reference = String(project.id);
    const created = await createIntegration(session, reference, { name: "Keyed", type: "http", active: true });
    const withToken = (scopes: string[]): Ctx => ({ ...session, actor: { kind: "user", user: owner, scopes: new Set(scopes) } });
    const keys = async (caller: Ctx) =>
      Promise.all((await listIntegrations(caller, reference)).items.map(async (view) => (await serializeIntegration(caller, view)).token));
    const [key] = await keys(session);
    expect(key).toMatch(/^[0-9a-f]{32}$/);
    expect(await keys(withToken(["api"]))).toEqual([key]);
    expect(await keys(withToken(["read_api"]))).toEqual([null]);
    const one = await getIntegration(withToken(["read_api", "read_user"]), reference, created.integration.id);
    expect((await serializeIntegration(withToken(["read_api", "read_user"]), one)).token).toBeNull();
  });

  it("refuses Developers (403) and those who cannot see the project (404)", async () => {
    const { ctx, project, reference } = await projectWithOwner();
    const developer = await createTestUser(handle.db);
    await addMember(ctx, reference, { userId: developer.id, accessLevel: 30 });
    await expect(getAlertSettingsPage(userContext(handle.db, developer), reference)).rejects.toBeInstanceOf(ForbiddenError);
    const stranger = await createTestUser(handle.db);
    await expect(getAlertSettingsPage(userContext(handle.db, stranger), String(project.id))).rejects.toBeInstanceOf(NotFoundError);
  });

  it("tells a blank name from one that is too long", async () => {
    const { ctx, reference } = await projectWithOwner();
    await expect(createIntegration(ctx, reference, { name: "  " })).rejects.toMatchObject({ errors: { name: ["can't be blank"] } });
    await expect(createIntegration(ctx, reference, { name: "x".repeat(256) })).rejects.toMatchObject({
      errors: { name: ["is too long (maximum is 255 characters)"] },
    });
    const { integration } = await createIntegration(ctx, reference, { name: "x".repeat(255) });
    await expect(updateIntegration(ctx, reference, integration.id, { name: "y".repeat(300) })).rejects.toBeInstanceOf(ValidationError);
  });
});
