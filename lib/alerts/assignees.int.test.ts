import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { pageRequest } from "@/lib/api/pagination";
import { users, type UserRow } from "@/lib/db/schema";
import { addMember } from "@/lib/projects/members";
import { createProject } from "@/lib/projects/projects";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { apiFailure, createTestUser, uniqueSuffix, userContext } from "@/lib/testing/fixtures";
import { getAlert, listAlerts, listAlertsWithStatusCounts, serializeAlert, setAlertAssignees, updateAlert } from "./alerts";
import { assignmentNote } from "./assignees";
import { createIntegration } from "./integrations";
import { applyPayload } from "./receive";

describe("assignment notes", () => {
  it("say who was assigned and unassigned as GitLab's system notes do", () => {
    const named = (...usernames: string[]) => usernames.map((username) => ({ username }));
    expect(assignmentNote(named("ann"), [])).toBe("assigned to @ann");
    expect(assignmentNote([], named("bob"))).toBe("unassigned @bob");
    expect(assignmentNote(named("ann"), named("bob"))).toBe("assigned to @ann and unassigned @bob");
    expect(assignmentNote(named("ann", "bob"), [])).toBe("assigned to @ann and @bob");
    expect(assignmentNote(named("ann", "bob", "cy"), [])).toBe("assigned to @ann, @bob, and @cy");
  });
});

describe.each(testDatabases())("alert assignees on $name", ({ open }) => {
  const handle = databaseForSuite(open);
  const now = new Date("2026-03-01T12:00:00Z");

  /** A project with two alerts and one member of each role, plus someone who is not a member. */
  async function team() {
    const owner = await createTestUser(handle.db);
    const ownerCtx = userContext(handle.db, owner);
    const { project } = await createProject(ownerCtx, { name: `Assignees ${uniqueSuffix()}` });
    const reference = String(project.id);
    const [developer, reporter, guest, outsider] = await Promise.all(Array.from({ length: 4 }, () => createTestUser(handle.db)));
    await addMember(ownerCtx, reference, { userId: developer!.id, accessLevel: 30 });
    await addMember(ownerCtx, reference, { userId: reporter!.id, accessLevel: 20 });
    await addMember(ownerCtx, reference, { userId: guest!.id, accessLevel: 10 });
    const { integration } = await createIntegration(ownerCtx, reference, { name: "Monitor", type: "http", active: true });
    await applyPayload(handle.db, integration, { title: "CPU hot", fingerprint: "cpu" }, now);
    await applyPayload(handle.db, integration, { title: "Disk full", fingerprint: "disk" }, now);
    return {
      reference,
      owner,
      developer: developer!,
      reporter: reporter!,
      guest: guest!,
      outsider: outsider!,
      asDeveloper: userContext(handle.db, developer!),
    };
  }

  const summary = (user: UserRow) => ({ id: user.id, username: user.username, name: user.name, state: "active" });
  const notesOf = async (ctx: ReturnType<typeof userContext>, reference: string, iid: number) =>
    (await getAlert(ctx, reference, iid)).notes.filter((note) => !note.body.startsWith("logged")).map((note) => ({ body: note.body, authorUsername: note.authorUsername }));

  it("assigns a member by id, renders the assignee as GitLab's UserBasic and notes it", async () => {
    const { reference, developer, reporter, asDeveloper } = await team();
    const updated = await setAlertAssignees(asDeveloper, reference, 1, [{ id: reporter.id }]);
    expect(updated.assignees).toEqual([summary(reporter)]);
    expect(updated.alert.updatedAt).toEqual(asDeveloper.now);
    const details = await getAlert(asDeveloper, reference, 1);
    expect(details.assignees).toEqual([summary(reporter)]);
    expect(serializeAlert(details.view, details).assignees).toEqual([
      {
        id: reporter.id,
        username: reporter.username,
        name: reporter.name,
        state: "active",
        avatar_url: expect.stringMatching(new RegExp(`/-/avatars/${reporter.id}$`)),
        web_url: expect.stringMatching(new RegExp(`/${reporter.username}$`)),
      },
    ]);
    expect(await notesOf(asDeveloper, reference, 1)).toEqual([{ body: `assigned to @${reporter.username}`, authorUsername: developer.username }]);
    // The other alert is untouched.
    expect((await getAlert(asDeveloper, reference, 2)).assignees).toEqual([]);
  });

  it("replaces the assignee, by username in any case, and notes nothing when nothing changes", async () => {
    const { reference, developer, reporter, asDeveloper } = await team();
    await setAlertAssignees(asDeveloper, reference, 1, [{ id: reporter.id }]);
    const replaced = await setAlertAssignees(asDeveloper, reference, 1, [{ username: developer.username.toUpperCase() }]);
    expect(replaced.assignees).toEqual([summary(developer)]);
    await setAlertAssignees(asDeveloper, reference, 1, [{ id: developer.id }]);
    expect(await notesOf(asDeveloper, reference, 1)).toEqual([
      { body: `assigned to @${reporter.username}`, authorUsername: developer.username },
      { body: `assigned to @${developer.username} and unassigned @${reporter.username}`, authorUsername: developer.username },
    ]);
  });

  it("keeps only the first assignee named, as GitLab's alerts have one", async () => {
    const { reference, developer, reporter, outsider, asDeveloper } = await team();
    const updated = await setAlertAssignees(asDeveloper, reference, 1, [{ id: reporter.id }, { id: developer.id }, { id: outsider.id }]);
    expect(updated.assignees).toEqual([summary(reporter)]);
  });

  it("unassigns with an empty list, noting who was unassigned, and notes nothing for an alert with nobody", async () => {
    const { reference, developer, reporter, asDeveloper } = await team();
    await setAlertAssignees(asDeveloper, reference, 1, [{ id: reporter.id }]);
    const unassigned = await setAlertAssignees(asDeveloper, reference, 1, []);
    expect(unassigned.assignees).toEqual([]);
    expect((await getAlert(asDeveloper, reference, 1)).assignees).toEqual([]);
    expect((await notesOf(asDeveloper, reference, 1)).at(-1)).toEqual({ body: `unassigned @${reporter.username}`, authorUsername: developer.username });
    await setAlertAssignees(asDeveloper, reference, 2, []);
    expect(await notesOf(asDeveloper, reference, 2)).toEqual([]);
  });

  it("changes the status and the assignee in one update, each with its note", async () => {
    const { reference, developer, asDeveloper } = await team();
    const updated = await updateAlert(asDeveloper, reference, 1, { status: "acknowledged", assignees: [{ id: developer.id }] });
    expect(updated.alert.status).toBe("acknowledged");
    expect(updated.assignees).toEqual([summary(developer)]);
    expect(await notesOf(asDeveloper, reference, 1)).toEqual([
      { body: "changed the status to **Acknowledged**", authorUsername: developer.username },
      { body: `assigned to @${developer.username}`, authorUsername: developer.username },
    ]);
  });

  it("refuses to assign anyone who may not read the project's alerts, changing nothing", async () => {
    const { reference, owner, reporter, guest, outsider, asDeveloper } = await team();
    await setAlertAssignees(asDeveloper, reference, 1, [{ id: reporter.id }]);
    // A Reporter whose account is blocked reads nothing.
    const blocked = await createTestUser(handle.db);
    await addMember(userContext(handle.db, owner), reference, { userId: blocked.id, accessLevel: 20 });
    await handle.db.update(users).set({ state: "blocked" }).where(eq(users.id, blocked.id));
    for (const refused of [[{ id: outsider.id }], [{ id: guest.id }], [{ username: `nobody_${uniqueSuffix()}` }], [{ id: 2_147_483_648 }], [{ id: blocked.id }]]) {
      const error = await apiFailure(setAlertAssignees(asDeveloper, reference, 1, refused));
      expect({ status: error.status, body: error.body() }).toEqual({ status: 400, body: { message: "Assignee has no permissions" } });
    }
    const details = await getAlert(asDeveloper, reference, 1);
    expect(details.assignees).toEqual([summary(reporter)]);
    expect(await notesOf(asDeveloper, reference, 1)).toEqual([{ body: `assigned to @${reporter.username}`, authorUsername: expect.any(String) }]);
  });

  it("lets only Developers and above change assignees", async () => {
    const { reference, reporter, guest, outsider } = await team();
    for (const user of [reporter, guest]) {
      const error = await apiFailure(setAlertAssignees(userContext(handle.db, user), reference, 1, [{ id: reporter.id }]));
      expect({ status: error.status, body: error.body() }).toEqual({ status: 403, body: { message: "403 Forbidden" } });
    }
    const hidden = await apiFailure(setAlertAssignees(userContext(handle.db, outsider), reference, 1, [{ id: reporter.id }]));
    expect({ status: hidden.status, body: hidden.body() }).toEqual({ status: 404, body: { message: "404 Project Not Found" } });
    const details = await getAlert(userContext(handle.db, reporter), reference, 1);
    expect(details.assignees).toEqual([]);
    expect(details.notes.map((note) => note.body)).not.toContain(`assigned to @${reporter.username}`);
  });

  it("filters the list by assignee username, with the other filters and in the status counts", async () => {
    const { reference, developer, reporter, asDeveloper } = await team();
    await setAlertAssignees(asDeveloper, reference, 1, [{ id: reporter.id }]);
    await setAlertAssignees(asDeveloper, reference, 2, [{ id: developer.id }]);
    await updateAlert(asDeveloper, reference, 2, { status: "resolved" });
    const page = pageRequest({});
    const iids = async (filters: Parameters<typeof listAlerts>[2]) => (await listAlerts(asDeveloper, reference, filters, page)).items.map((item) => item.alert.iid);

    expect(await iids({ assigneeUsername: reporter.username })).toEqual([1]);
    expect(await iids({ assigneeUsername: developer.username.toUpperCase() })).toEqual([2]);
    expect(await iids({ assigneeUsername: `nobody_${uniqueSuffix()}` })).toEqual([]);
    expect(await iids({ assigneeUsername: developer.username, status: ["triggered"] })).toEqual([]);
    expect(await iids({ assigneeUsername: developer.username, status: ["resolved"] })).toEqual([2]);
    expect(await iids({ assigneeUsername: reporter.username, search: "disk" })).toEqual([]);
    expect(await iids({ assigneeUsername: reporter.username, search: "cpu" })).toEqual([1]);

    const listed = await listAlerts(asDeveloper, reference, { assigneeUsername: reporter.username }, page);
    expect(listed.total).toBe(1);
    expect(listed.items[0]!.assignees).toEqual([summary(reporter)]);
    const withCounts = await listAlertsWithStatusCounts(asDeveloper, reference, { assigneeUsername: developer.username }, page);
    expect(withCounts.statusCounts).toEqual({ triggered: 0, acknowledged: 0, resolved: 1, ignored: 0 });
  });
});
