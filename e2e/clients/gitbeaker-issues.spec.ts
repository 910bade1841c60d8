import { Gitlab } from "@gitbeaker/rest";
import { expect, test } from "@playwright/test";
import { addMember, createProject, createUser, isoTimestamp, rootToken } from "../support/api";

/**
 * gitbeaker (`@gitbeaker/rest`) against the issues API: Issues, IssueNotes, ProjectLabels and ProjectMilestones through
 * their own methods, asserting what they hand back.
 */

/** The HTTP status a gitbeaker call failed with (its `cause.response`), or the call's success as a failure. */
async function statusOf(call: Promise<unknown>): Promise<{ status: number; description: string }> {
  try {
    await call;
  } catch (error) {
    const cause = (error as { cause?: { response?: Response; description?: string } }).cause;
    if (cause?.response) return { status: cause.response.status, description: cause.description ?? "" };
    throw error;
  }
  throw new Error("the call succeeded");
}

test("Issues: create with labels, assignees, milestone; edit with add/remove labels; show; remove", async ({ request, baseURL }) => {
  const owner = await createUser(request);
  const developer = await createUser(request);
  const project = await createProject(request, owner.token);
  await addMember(request, owner.token, project.id, developer.id, 30);
  const api = new Gitlab({ host: baseURL!, token: owner.token });
  const milestone = await api.ProjectMilestones.create(project.id, "v1", { dueDate: "2999-01-01" });

  const created = await api.Issues.create(project.id, "Crash", {
    description: "It crashes",
    labels: "bug,critical",
    assigneeIds: [developer.id],
    milestoneId: milestone.id,
    dueDate: "2030-05-01",
  });
  expect(created).toMatchObject({
    iid: 1,
    project_id: project.id,
    title: "Crash",
    state: "opened",
    labels: ["bug", "critical"],
    assignees: [{ id: developer.id, username: developer.username }],
    assignee: { id: developer.id },
    author: { id: owner.id, username: owner.username },
    milestone: { id: milestone.id, title: "v1", due_date: "2999-01-01", expired: false },
    due_date: "2030-05-01",
    confidential: false,
    user_notes_count: 0,
    upvotes: 0,
    closed_by: null,
    type: "ISSUE",
    issue_type: "issue",
    web_url: `${baseURL}/${project.path_with_namespace}/-/issues/1`,
    created_at: isoTimestamp,
    _links: { self: `${baseURL}/api/v4/projects/${project.id}/issues/1`, notes: `${baseURL}/api/v4/projects/${project.id}/issues/1/notes` },
  });

  const edited = await api.Issues.edit(project.id, created.iid, { addLabels: "ui", removeLabels: "critical", assigneeIds: [], milestoneId: 0 });
  expect(edited).toMatchObject({ labels: ["bug", "ui"], assignees: [], assignee: null, milestone: null });
  const relabelled = await api.Issues.edit(project.id, created.iid, { labels: "docs", stateEvent: "close" });
  expect(relabelled).toMatchObject({ labels: ["docs"], state: "closed", closed_by: { id: owner.id }, closed_at: isoTimestamp });

  const shown = await api.Issues.show(created.iid, { projectId: project.id });
  expect(shown).toMatchObject({ iid: 1, labels: ["docs"], state: "closed" });
  const expanded = await api.Issues.all({ projectId: project.id, withLabelsDetails: true });
  expect(expanded[0]!.labels).toEqual([
    { id: expect.any(Number), name: "docs", color: "#6699cc", description: null, description_html: "", text_color: "#FFFFFF", remove_on_close: false },
  ]);

  const asDeveloper = new Gitlab({ host: baseURL!, token: developer.token });
  expect(await statusOf(asDeveloper.Issues.remove(project.id, created.iid))).toMatchObject({ status: 403 });
  await api.Issues.remove(project.id, created.iid);
  expect(await statusOf(api.Issues.show(created.iid, { projectId: project.id }))).toMatchObject({ status: 404, description: "404 Issue Not Found" });
});

test("Issues.all: the project's with filters, across projects by scope, every page", async ({ request, baseURL }) => {
  const owner = await createUser(request);
  const reporter = await createUser(request);
  const project = await createProject(request, owner.token, { visibility: "internal" });
  await addMember(request, owner.token, project.id, reporter.id, 20);
  const api = new Gitlab({ host: baseURL!, token: owner.token });
  const milestone = await api.ProjectMilestones.create(project.id, "v1");
  for (let index = 0; index < 25; index += 1) {
    await api.Issues.create(project.id, `Issue ${index}`, { labels: index % 2 === 0 ? "even" : "odd", ...(index < 3 ? { milestoneId: milestone.id } : {}) });
  }
  await api.Issues.create(project.id, "Assigned to the reporter", { assigneeId: reporter.id, labels: "odd,special" });

  const titles = (issues: { title: string }[]) => issues.map((issue) => issue.title);
  const everything = await api.Issues.all({ projectId: project.id, perPage: 10 });
  expect(everything).toHaveLength(26);
  expect(everything[0]!.title).toBe("Assigned to the reporter");
  const evens = await api.Issues.all({ projectId: project.id, labels: "even", state: "opened", perPage: 5 });
  expect(evens).toHaveLength(13);
  expect(titles(await api.Issues.all({ projectId: project.id, labels: "odd,special" }))).toEqual(["Assigned to the reporter"]);
  expect(titles(await api.Issues.all({ projectId: project.id, milestone: "v1", sort: "asc" }))).toEqual(["Issue 0", "Issue 1", "Issue 2"]);
  expect(titles(await api.Issues.all({ projectId: project.id, iids: [1, 26] }))).toEqual(["Assigned to the reporter", "Issue 0"]);
  expect(titles(await api.Issues.all({ projectId: project.id, search: "reporter", in: "title" }))).toEqual(["Assigned to the reporter"]);
  expect(titles(await api.Issues.all({ projectId: project.id, orderBy: "title", sort: "asc", perPage: 3, maxPages: 1 }))).toEqual([
    "Assigned to the reporter",
    "Issue 0",
    "Issue 1",
  ]);

  const asReporter = new Gitlab({ host: baseURL!, token: reporter.token });
  expect(await asReporter.Issues.all()).toEqual([]);
  expect(titles(await asReporter.Issues.all({ scope: "assigned_to_me" }))).toEqual(["Assigned to the reporter"]);
  expect(await asReporter.Issues.all({ scope: "all", authorId: owner.id, perPage: 20 })).toHaveLength(26);
  const page = await api.Issues.all({ perPage: 10, page: 3, showExpanded: true, maxPages: 1 });
  expect(page.paginationInfo).toMatchObject({ total: 26, current: 3, perPage: 10, totalPages: 3, previous: 2, next: null });
  expect(page.data).toHaveLength(6);
});

test("IssueNotes: create, all (newest first), show, edit, remove; internal notes hidden from a Guest", async ({ request, baseURL }) => {
  const owner = await createUser(request);
  const guest = await createUser(request);
  const project = await createProject(request, owner.token, { visibility: "public" });
  await addMember(request, owner.token, project.id, guest.id, 10);
  const api = new Gitlab({ host: baseURL!, token: owner.token });
  const issue = await api.Issues.create(project.id, "Talk");
  const first = await api.IssueNotes.create(project.id, issue.iid, "first");
  const internal = await api.IssueNotes.create(project.id, issue.iid, "internal words", { internal: true });
  expect(internal).toMatchObject({ body: "internal words", internal: true, confidential: true, noteable_iid: issue.iid, noteable_type: "Issue" });

  expect((await api.IssueNotes.all(project.id, issue.iid)).map((note) => note.body)).toEqual(["internal words", "first"]);
  expect((await api.IssueNotes.all(project.id, issue.iid, { sort: "asc", orderBy: "updated_at" })).map((note) => note.body)).toEqual([
    "first",
    "internal words",
  ]);
  const shown = await api.IssueNotes.show(project.id, issue.iid, first.id);
  expect(shown).toMatchObject({ id: first.id, body: "first", author: { id: owner.id }, system: false, created_at: isoTimestamp });
  const edited = await api.IssueNotes.edit(project.id, issue.iid, first.id, { body: "first, edited" });
  expect(edited).toMatchObject({ id: first.id, body: "first, edited" });

  const asGuest = new Gitlab({ host: baseURL!, token: guest.token });
  expect((await asGuest.IssueNotes.all(project.id, issue.iid)).map((note) => note.body)).toEqual(["first, edited"]);
  expect(await statusOf(asGuest.IssueNotes.show(project.id, issue.iid, internal.id))).toEqual({ status: 404, description: "404 Note Not Found" });
  expect(await statusOf(asGuest.IssueNotes.edit(project.id, issue.iid, internal.id, { body: "x" }))).toMatchObject({ status: 404 });
  expect(await statusOf(asGuest.IssueNotes.remove(project.id, issue.iid, internal.id))).toMatchObject({ status: 404 });
  expect(await statusOf(asGuest.IssueNotes.edit(project.id, issue.iid, first.id, { body: "x" }))).toMatchObject({ status: 403 });

  await api.IssueNotes.remove(project.id, issue.iid, first.id);
  expect((await api.IssueNotes.all(project.id, issue.iid)).map((note) => note.body)).toEqual(["internal words"]);
  expect(await statusOf(api.IssueNotes.show(project.id, issue.iid, first.id))).toMatchObject({ status: 404 });
});

test("ProjectLabels: create, all with counts, show, edit by id, remove", async ({ request, baseURL }) => {
  const owner = await createUser(request);
  const project = await createProject(request, owner.token);
  const api = new Gitlab({ host: baseURL!, token: owner.token });
  const bug = await api.ProjectLabels.create(project.id, "bug", "#FF0000", { description: "Broken" });
  expect(bug).toEqual({
    id: expect.any(Number),
    name: "bug",
    color: "#FF0000",
    description: "Broken",
    description_html: "Broken",
    text_color: "#FFFFFF",
    remove_on_close: false,
    subscribed: false,
    priority: null,
    is_project_label: true,
  });
  expect(await statusOf(api.ProjectLabels.create(project.id, "bug", "#000000"))).toEqual({ status: 409, description: "Label already exists" });
  expect(await statusOf(api.ProjectLabels.create(project.id, "bad", "red"))).toMatchObject({ status: 400 });
  const issue = await api.Issues.create(project.id, "labelled", { labels: "bug" });
  await api.Issues.edit(project.id, issue.iid, { stateEvent: "close" });
  expect(await api.ProjectLabels.all(project.id, { withCounts: true })).toEqual([
    expect.objectContaining({ name: "bug", open_issues_count: 0, closed_issues_count: 1, open_merge_requests_count: 0 }),
  ]);
  expect(await api.ProjectLabels.show(project.id, "bug")).toMatchObject({ id: bug.id });
  const renamed = await api.ProjectLabels.edit(project.id, bug.id, { newName: "defect", description: "Broken, really" });
  expect(renamed).toMatchObject({ id: bug.id, name: "defect", color: "#FF0000", description: "Broken, really" });
  const recoloured = await api.ProjectLabels.edit(project.id, "defect", { color: "#ffff00" });
  expect(recoloured).toMatchObject({ id: bug.id, name: "defect", color: "#ffff00", text_color: "#1F1E24" });
  expect((await api.Issues.show(issue.iid, { projectId: project.id })).labels).toEqual(["defect"]);
  await api.ProjectLabels.remove(project.id, "defect");
  expect(await api.ProjectLabels.all(project.id)).toEqual([]);
  expect((await api.Issues.show(issue.iid, { projectId: project.id })).labels).toEqual([]);
});

test("ProjectMilestones: all by state, title and iids, allAssignedIssues, remove", async ({ request, baseURL }) => {
  const owner = await createUser(request);
  const project = await createProject(request, owner.token);
  const api = new Gitlab({ host: baseURL!, token: owner.token });
  const v1 = await api.ProjectMilestones.create(project.id, "v1", { dueDate: "2030-01-01" });
  const v2 = await api.ProjectMilestones.create(project.id, "v2", { description: "later" });
  await api.ProjectMilestones.edit(project.id, v2.id, { stateEvent: "close" });
  await api.Issues.create(project.id, "planned", { milestoneId: v1.id });

  const titles = (milestones: { title: string }[]) => milestones.map((milestone) => milestone.title);
  expect(titles(await api.ProjectMilestones.all(project.id))).toEqual(["v1", "v2"]);
  expect(titles(await api.ProjectMilestones.all(project.id, { state: "active" }))).toEqual(["v1"]);
  expect(titles(await api.ProjectMilestones.all(project.id, { title: "v2" }))).toEqual(["v2"]);
  expect(titles(await api.ProjectMilestones.all(project.id, { iids: [v2.iid] }))).toEqual(["v2"]);
  expect(titles(await api.ProjectMilestones.all(project.id, { search: "later" }))).toEqual(["v2"]);
  const issues = await api.ProjectMilestones.allAssignedIssues(project.id, v1.id);
  expect(issues.map((issue) => [issue.title, (issue.milestone as { id: number }).id])).toEqual([["planned", v1.id]]);

  await api.ProjectMilestones.remove(project.id, v1.id);
  expect(titles(await api.ProjectMilestones.all(project.id))).toEqual(["v2"]);
  expect(await statusOf(api.ProjectMilestones.show(project.id, v1.id))).toMatchObject({ status: 404 });
  expect((await api.Issues.show(1, { projectId: project.id })).milestone).toBeNull();
});

test("every list of the issues API pages with GitLab's headers, as gitbeaker reads them", async ({ request, baseURL }) => {
  const owner = await createUser(request);
  const project = await createProject(request, owner.token);
  const api = new Gitlab({ host: baseURL!, token: owner.token });
  const milestone = await api.ProjectMilestones.create(project.id, "v1");
  await api.ProjectMilestones.create(project.id, "v2");
  await api.Issues.create(project.id, "one", { labels: "a", milestoneId: milestone.id });
  const issue = await api.Issues.create(project.id, "two", { labels: "b", milestoneId: milestone.id });
  await api.IssueNotes.create(project.id, issue.iid, "first");
  await api.IssueNotes.create(project.id, issue.iid, "second");

  const secondOfTwo = { total: 2, current: 2, perPage: 1, totalPages: 2, previous: 1, next: null };
  const pages = {
    issues: await api.Issues.all({ perPage: 1, page: 2, showExpanded: true, maxPages: 1 }),
    projectIssues: await api.Issues.all({ projectId: project.id, perPage: 1, page: 2, showExpanded: true, maxPages: 1 }),
    notes: await api.IssueNotes.all(project.id, issue.iid, { perPage: 1, page: 2, showExpanded: true, maxPages: 1 }),
    labels: await api.ProjectLabels.all(project.id, { perPage: 1, page: 2, showExpanded: true, maxPages: 1 }),
    milestones: await api.ProjectMilestones.all(project.id, { perPage: 1, page: 2, showExpanded: true, maxPages: 1 }),
  };
  for (const [list, page] of Object.entries(pages)) {
    expect(page.paginationInfo, list).toMatchObject(secondOfTwo);
    expect(page.data, list).toHaveLength(1);
  }
  // gitbeaker types this list without paging, but reads its pagination headers like any other list's.
  const milestoneIssues = (await api.ProjectMilestones.allAssignedIssues(project.id, milestone.id, { showExpanded: true })) as unknown as {
    data: { title: string }[];
    paginationInfo: unknown;
  };
  expect(milestoneIssues.data.map((item) => item.title)).toEqual(["two", "one"]);
  expect(milestoneIssues.paginationInfo).toMatchObject({ total: 2, current: 1, totalPages: 1, next: null });
});

test("refusals in GitLab's words; notes, labels and milestones need a signed-in caller, issues of public projects do not", async ({ request, baseURL }) => {
  const owner = await createUser(request);
  const project = await createProject(request, owner.token, { visibility: "public" });
  const api = new Gitlab({ host: baseURL!, token: owner.token });
  const issue = await api.Issues.create(project.id, "Public", { labels: "bug" });
  await api.IssueNotes.create(project.id, issue.iid, "hello");

  expect(await statusOf(api.Issues.edit(project.id, issue.iid, {}))).toEqual({
    status: 400,
    description:
      "assignee_id, assignee_ids, confidential, description, due_date, labels, add_labels, remove_labels, milestone_id, state_event, title are missing, at least one parameter must be provided",
  });
  expect(await statusOf(api.Issues.all({ projectId: project.id, authorId: owner.id, authorUsername: owner.username }))).toEqual({
    status: 400,
    description: "author_id, author_username are mutually exclusive",
  });
  expect(await statusOf(api.Issues.all({ projectId: project.id, orderBy: "votes" }))).toEqual({ status: 400, description: "order_by does not have a valid value" });
  expect(await statusOf(api.Issues.all({ projectId: project.id, createdAfter: "last week" }))).toEqual({ status: 400, description: "created_after is invalid" });
  expect(await statusOf(api.IssueNotes.edit(project.id, issue.iid, 1, { body: " " }))).toEqual({ status: 400, description: "body is empty" });
  expect(await statusOf(api.ProjectLabels.edit(project.id, "bug", { color: "red" }))).toMatchObject({ status: 400 });

  const anonymous = new Gitlab({ host: baseURL! });
  expect((await anonymous.Issues.all({ projectId: project.id })).map((listed) => listed.title)).toEqual(["Public"]);
  expect((await anonymous.Issues.show(issue.iid, { projectId: project.id })).labels).toEqual(["bug"]);
  expect(await statusOf(anonymous.IssueNotes.all(project.id, issue.iid))).toMatchObject({ status: 401 });
  expect(await statusOf(anonymous.ProjectLabels.all(project.id))).toMatchObject({ status: 401 });
  expect(await statusOf(anonymous.ProjectMilestones.all(project.id))).toMatchObject({ status: 401 });
  expect(await statusOf(anonymous.Issues.all())).toMatchObject({ status: 401 });
  // The admin-only lookup by global id.
  expect(await statusOf(api.Issues.show(issue.id))).toMatchObject({ status: 403 });
  expect(await new Gitlab({ host: baseURL!, token: rootToken }).Issues.show(issue.id)).toMatchObject({ id: issue.id, iid: issue.iid, project_id: project.id });
});
