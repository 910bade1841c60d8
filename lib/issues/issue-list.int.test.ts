import { describe, expect, it } from "vitest";
import type { Ctx } from "@/lib/context";
import { pageRequest } from "@/lib/api/pagination";
import type { UserRow } from "@/lib/db/schema";
import { UnauthorizedError } from "@/lib/errors";
import { addMember } from "@/lib/projects/members";
import { createProject } from "@/lib/projects/projects";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { anonymousTestContext, createTestUser, uniqueSuffix, userContext } from "@/lib/testing/fixtures";
import { listIssues, listIssuesAcrossProjects, listMilestoneIssues, type IssueFilters } from "./issue-list";
import { createIssue, updateIssue, type NewIssue } from "./issues";
import { createMilestone } from "./milestones";

const firstPage = pageRequest({});

describe.each(testDatabases())("issue lists on $name", ({ open }) => {
  const handle = databaseForSuite(open);

  const at = (ctx: Ctx, instant: string): Ctx => ({ ...ctx, now: new Date(instant) });

  /**
   * A public project with six issues, made at known times by its owner and a developer, with labels, assignees,
   * milestones, confidentiality and states that each filter tells apart.
   */
  async function tracker() {
    const [owner, developer, guest, stranger] = await Promise.all([1, 2, 3, 4].map(() => createTestUser(handle.db)));
    const ownerCtx = userContext(handle.db, owner!);
    const view = await createProject(ownerCtx, { name: `Tracker ${uniqueSuffix()}`, visibility: "public" });
    const project = String(view.project.id);
    await addMember(ownerCtx, project, { userId: developer!.id, accessLevel: 30 });
    await addMember(ownerCtx, project, { userId: guest!.id, accessLevel: 10 });
    const released = await createMilestone(ownerCtx, project, { title: "v1", dueDate: "2999-01-01", startDate: "2000-01-01" });
    const later = await createMilestone(ownerCtx, project, { title: "v2", dueDate: "2999-06-01" });
    const file = (ctx: Ctx, instant: string, input: NewIssue) => createIssue(at(ctx, instant), project, input);
    const developerCtx = userContext(handle.db, developer!);
    const issues = {
      crash: await file(ownerCtx, "2024-01-01T10:00:00Z", {
        title: "Crash on start",
        description: "The app crashes when it starts",
        labels: ["bug", "critical"],
        assigneeIds: [developer!.id],
        milestoneId: released.milestone.id,
      }),
      slow: await file(ownerCtx, "2024-01-02T10:00:00Z", { title: "Slow search", description: "Searching takes a minute", labels: ["bug"] }),
      docs: await file(developerCtx, "2024-01-03T10:00:00Z", {
        title: "Document the API",
        labels: ["docs"],
        assigneeIds: [owner!.id, developer!.id],
        milestoneId: later.milestone.id,
      }),
      secret: await file(developerCtx, "2024-01-04T10:00:00Z", { title: "Leaked key", confidential: true, labels: ["bug"] }),
      plain: await file(ownerCtx, "2024-01-05T10:00:00Z", { title: "Crash report template", description: "Plain" }),
      closed: await file(ownerCtx, "2024-01-06T10:00:00Z", { title: "Old crash", labels: ["critical"] }),
    };
    await updateIssue(at(ownerCtx, "2024-02-01T00:00:00Z"), project, issues.closed.issue.iid, { stateEvent: "close" });
    await updateIssue(at(ownerCtx, "2024-02-02T00:00:00Z"), project, issues.slow.issue.iid, { description: "Searching takes two minutes" });
    return { owner: owner!, developer: developer!, guest: guest!, stranger: stranger!, view, project, issues, milestones: { released, later } };
  }

  type Tracker = Awaited<ReturnType<typeof tracker>>;

  async function titles(team: Tracker, viewer: UserRow | null, filters: IssueFilters): Promise<string[]> {
    const ctx = viewer ? userContext(handle.db, viewer) : anonymousTestContext(handle.db);
    return (await listIssues(ctx, team.project, filters, firstPage)).items.map(({ issue }) => issue.title);
  }

  it("lists every issue the caller may read, newest first, with the total; confidential ones for their author and Reporters+", async () => {
    const team = await tracker();
    const everyone = ["Old crash", "Crash report template", "Document the API", "Slow search", "Crash on start"];
    expect(await titles(team, null, {})).toEqual(everyone);
    expect(await titles(team, team.guest, {})).toEqual(everyone);
    expect(await titles(team, team.developer, {})).toEqual(["Old crash", "Crash report template", "Leaked key", "Document the API", "Slow search", "Crash on start"]);
    const page = await listIssues(userContext(handle.db, team.stranger), team.project, {}, pageRequest({ per_page: 2, page: 2 }));
    expect(page.total).toBe(5);
    expect(page.items.map(({ issue }) => issue.title)).toEqual(["Document the API", "Slow search"]);
  });

  it("filters by state, labels (all of them; None; Any), milestone (title, None, Any, upcoming, started) and iids", async () => {
    const team = await tracker();
    const viewer = team.owner;
    expect(await titles(team, viewer, { state: "closed" })).toEqual(["Old crash"]);
    expect(await titles(team, viewer, { state: "opened", labels: { kind: "all-of", names: ["bug"] } })).toEqual(["Leaked key", "Slow search", "Crash on start"]);
    expect(await titles(team, viewer, { labels: { kind: "all-of", names: ["bug", "critical"] } })).toEqual(["Crash on start"]);
    expect(await titles(team, viewer, { labels: { kind: "all-of", names: ["bug", "no-such-label"] } })).toEqual([]);
    expect(await titles(team, viewer, { labels: { kind: "none" } })).toEqual(["Crash report template"]);
    expect(await titles(team, viewer, { labels: { kind: "any" } })).toHaveLength(5);
    expect(await titles(team, viewer, { milestone: { kind: "title", title: "v2" } })).toEqual(["Document the API"]);
    expect(await titles(team, viewer, { milestone: { kind: "none" } })).toEqual(["Old crash", "Crash report template", "Leaked key", "Slow search"]);
    expect(await titles(team, viewer, { milestone: { kind: "any" } })).toEqual(["Document the API", "Crash on start"]);
    // v1 is due first after today (and started long ago); v2 has no start date.
    expect(await titles(team, viewer, { milestone: { kind: "upcoming" } })).toEqual(["Crash on start"]);
    expect(await titles(team, viewer, { milestone: { kind: "started" } })).toEqual(["Crash on start"]);
    expect(await titles(team, viewer, { iids: [team.issues.crash.issue.iid, team.issues.plain.issue.iid, 2_147_483_648] })).toEqual([
      "Crash report template",
      "Crash on start",
    ]);
    expect(await titles(team, viewer, { iids: [9_999_999_999] })).toEqual([]);
  });

  it("filters by author (id or username), assignee (id, None, Any, usernames), confidentiality and scope", async () => {
    const team = await tracker();
    const viewer = team.developer;
    expect(await titles(team, viewer, { authorId: team.developer.id })).toEqual(["Leaked key", "Document the API"]);
    expect(await titles(team, viewer, { authorUsername: team.developer.username.toUpperCase() })).toEqual(["Leaked key", "Document the API"]);
    expect(await titles(team, viewer, { authorUsername: "nobody-at-all" })).toEqual([]);
    expect(await titles(team, viewer, { assignee: { kind: "id", id: team.owner.id } })).toEqual(["Document the API"]);
    expect(await titles(team, viewer, { assignee: { kind: "any" } })).toEqual(["Document the API", "Crash on start"]);
    expect(await titles(team, viewer, { assignee: { kind: "none" } })).toEqual(["Old crash", "Crash report template", "Leaked key", "Slow search"]);
    expect(await titles(team, viewer, { assigneeUsernames: [team.owner.username, team.developer.username] })).toEqual(["Document the API"]);
    expect(await titles(team, viewer, { confidential: true })).toEqual(["Leaked key"]);
    expect(await titles(team, viewer, { scope: "created_by_me" })).toEqual(["Leaked key", "Document the API"]);
    expect(await titles(team, viewer, { scope: "assigned_to_me" })).toEqual(["Document the API", "Crash on start"]);
    expect(await titles(team, null, { scope: "created_by_me" })).toEqual([]);
  });

  it("searches titles and descriptions word by word (in=title or description), and filters by creation and update times", async () => {
    const team = await tracker();
    const viewer = team.owner;
    expect(await titles(team, viewer, { search: "crash" })).toEqual(["Old crash", "Crash report template", "Crash on start"]);
    expect(await titles(team, viewer, { search: "crashes starts" })).toEqual(["Crash on start"]);
    expect(await titles(team, viewer, { search: "crash", searchIn: ["description"] })).toEqual(["Crash on start"]);
    expect(await titles(team, viewer, { search: "minutes", searchIn: ["title"] })).toEqual([]);
    expect(await titles(team, viewer, { search: '"takes two"' })).toEqual(["Slow search"]);
    // No word of three letters: the whole query must equal a title or description, in any case.
    expect(await titles(team, viewer, { search: "pl" })).toEqual([]);
    expect(await titles(team, viewer, { search: "100%" })).toEqual([]);
    expect(
      await titles(team, viewer, { createdAfter: new Date("2024-01-02T10:00:00Z"), createdBefore: new Date("2024-01-05T10:00:00Z") }),
    ).toEqual(["Crash report template", "Leaked key", "Document the API", "Slow search"]);
    expect(await titles(team, viewer, { updatedAfter: new Date("2024-02-01T00:00:00Z") })).toEqual(["Old crash", "Slow search"]);
    expect(await titles(team, viewer, { updatedBefore: new Date("2024-01-01T10:00:00Z") })).toEqual(["Crash on start"]);
  });

  it("orders by created_at, updated_at, title, due date and milestone due date, either way", async () => {
    const team = await tracker();
    const viewer = team.owner;
    expect(await titles(team, viewer, { sort: "asc" })).toEqual(["Crash on start", "Slow search", "Document the API", "Leaked key", "Crash report template", "Old crash"]);
    expect((await titles(team, viewer, { orderBy: "updated_at" })).slice(0, 2)).toEqual(["Slow search", "Old crash"]);
    expect(await titles(team, viewer, { orderBy: "title", sort: "asc" })).toEqual([
      "Crash on start",
      "Crash report template",
      "Document the API",
      "Leaked key",
      "Old crash",
      "Slow search",
    ]);
    expect((await titles(team, viewer, { orderBy: "milestone_due", sort: "asc" })).slice(0, 2)).toEqual(["Crash on start", "Document the API"]);
    expect((await titles(team, viewer, { orderBy: "milestone_due", sort: "desc" })).slice(0, 2)).toEqual(["Document the API", "Crash on start"]);
  });

  it("lists a milestone's issues the caller may read", async () => {
    const team = await tracker();
    const result = await listMilestoneIssues(userContext(handle.db, team.stranger), team.project, team.milestones.released.milestone.id, firstPage);
    expect(result.items.map(({ issue }) => issue.title)).toEqual(["Crash on start"]);
    expect(result.total).toBe(1);
  });

  it("GET /issues: created_by_me by default, assigned_to_me, all; only readable issues of visible projects; sign-in unless all", async () => {
    const team = await tracker();
    const ownerCtx = userContext(handle.db, team.owner);
    const hidden = await createProject(ownerCtx, { name: `Hidden ${uniqueSuffix()}`, visibility: "private" });
    await createIssue(ownerCtx, String(hidden.project.id), { title: "Private matter" });
    const across = async (viewer: UserRow | null, filters: IssueFilters) =>
      (await listIssuesAcrossProjects(viewer ? userContext(handle.db, viewer) : anonymousTestContext(handle.db), filters, firstPage)).items.map(
        ({ issue }) => issue.title,
      );
    expect(await across(team.developer, {})).toEqual(["Leaked key", "Document the API"]);
    expect(await across(team.developer, { scope: "assigned_to_me" })).toEqual(["Document the API", "Crash on start"]);
    expect(await across(team.owner, { scope: "created_by_me", labels: { kind: "all-of", names: ["critical"] } })).toEqual(["Old crash", "Crash on start"]);
    expect(await across(team.owner, { scope: "all", search: "matter" })).toEqual(["Private matter"]);
    expect(await across(team.stranger, { scope: "all", search: "matter" })).toEqual([]);
    expect(await across(team.stranger, { scope: "all", confidential: true })).not.toContain("Leaked key");
    expect(await across(null, { scope: "all", authorId: team.developer.id })).toEqual(["Document the API"]);
    await expect(listIssuesAcrossProjects(anonymousTestContext(handle.db), {}, firstPage)).rejects.toBeInstanceOf(UnauthorizedError);
  });

  it("every page is the slice of the whole list at its offset, for every viewer and state, with the same total", async () => {
    const team = await tracker();
    const viewers: (UserRow | null)[] = [team.owner, team.developer, team.guest, team.stranger, null];
    for (const viewer of viewers) {
      const ctx = viewer ? userContext(handle.db, viewer) : anonymousTestContext(handle.db);
      for (const filters of [{}, { state: "opened" as const }, { state: "closed" as const }, { orderBy: "updated_at" as const, sort: "asc" as const }]) {
        const whole = await listIssues(ctx, team.project, filters, firstPage);
        const paged: string[] = [];
        for (let page = 1; page <= 4; page += 1) {
          const slice = await listIssues(ctx, team.project, filters, pageRequest({ page, per_page: 2 }));
          expect(slice.total, `${viewer?.username ?? "anonymous"} ${JSON.stringify(filters)} page ${page}`).toBe(whole.total);
          paged.push(...slice.items.map(({ issue }) => issue.title));
          if (!slice.hasNext) break;
        }
        expect(paged).toEqual(whole.items.map(({ issue }) => issue.title));
      }
    }
    // Across projects, likewise: the tracker's issues among everyone's, by page.
    const stranger = userContext(handle.db, team.stranger);
    const filters: IssueFilters = { scope: "all", iids: [1, 2, 3, 4, 5, 6], authorId: team.owner.id };
    const whole = (await listIssuesAcrossProjects(stranger, filters, firstPage)).items.map(({ issue }) => issue.id);
    const pages = [1, 2, 3].map((page) => listIssuesAcrossProjects(stranger, filters, pageRequest({ page, per_page: 2 })));
    expect((await Promise.all(pages)).flatMap((page) => page.items.map(({ issue }) => issue.id))).toEqual(whole);
  });
});
