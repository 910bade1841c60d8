import { expect, test } from "@playwright/test";
import { addMember, createProject, createUser, isoTimestamp } from "../support/api";
import { requirePythonGitlab, runPythonGitlab } from "../support/python-gitlab";

/**
 * python-gitlab 3.12 as people script GitLab with it: issues with labels, assignees and milestones, the issue lists and
 * their filters, comments, labels and milestones, each through the client's own methods.
 */
test.beforeEach(() => requirePythonGitlab());

/** A python prelude: `p`, the project (lazy, as scripts usually get it), and `as_user(token)` for a second client. */
const prelude = `
p = gl.projects.get(args["project"], lazy=True)
def as_user(token):
    return gitlab.Gitlab(os.environ["GITLAB_URL"], private_token=token)
`;

test("issues: create with a label (created on the fly), edit labels, assignees, milestone and due date, close, delete", async ({ request, baseURL }) => {
  const owner = await createUser(request);
  const developer = await createUser(request);
  const stranger = await createUser(request);
  const project = await createProject(request, owner.token, { visibility: "private" });
  await addMember(request, owner.token, project.id, developer.id, 30);
  const out = runPythonGitlab(
    `${prelude}
iss = p.issues.create({"title": "x", "labels": "bug"})
out["created"] = {"iid": iss.iid, "title": iss.title, "labels": iss.labels, "state": iss.state, "assignees": iss.assignees, "milestone": iss.milestone}
out["label_made"] = [(l.name, l.color, l.text_color, l.is_project_label) for l in p.labels.list(get_all=True)]

m = p.milestones.create({"title": "v1", "due_date": "2999-12-31"})
iss.labels = ["bug", "ui"]
iss.assignee_ids = [args["developer"], args["stranger"]]
iss.milestone_id = m.id
iss.due_date = "2030-01-31"
iss.description = "- [x] reproduce\\n- [ ] fix"
iss.save()
out["saved"] = {
    "labels": iss.labels,
    "assignees": [a["username"] for a in iss.assignees],
    "assignee": iss.assignee["username"],
    "milestone": iss.milestone["title"],
    "due_date": iss.due_date,
    "task_completion_status": iss.task_completion_status,
    "has_tasks": iss.has_tasks,
}

again = p.issues.get(iss.iid)
out["fetched"] = {"labels": again.labels, "milestone_id": again.milestone["id"] == m.id, "references": again.references, "type": again.type}
detailed = p.issues.list(iids=[iss.iid], with_labels_details=True)[0]
out["detailed_labels"] = [(l["name"], l["color"]) for l in detailed.labels]

iss.state_event = "close"
iss.save()
# closed_by() is a method of the issue object (merge requests closing it): the field is in its attributes.
out["closed"] = {"state": iss.state, "closed_by": iss.attributes["closed_by"]["username"]}

try:
    as_user(args["developer_token"]).projects.get(args["project"], lazy=True).issues.delete(iss.iid)
except gitlab.exceptions.GitlabDeleteError as error:
    out["developer_delete"] = error.response_code
iss.delete()
try:
    p.issues.get(iss.iid)
except gitlab.exceptions.GitlabGetError as error:
    out["after_delete"] = error.response_code
`,
    {
      baseURL: baseURL!,
      token: owner.token,
      args: { project: project.id, developer: developer.id, developer_token: developer.token, stranger: stranger.id },
    },
  );
  expect(out).toEqual({
    created: { iid: 1, title: "x", labels: ["bug"], state: "opened", assignees: [], milestone: null },
    label_made: [["bug", "#6699cc", "#FFFFFF", true]],
    // The stranger cannot read this private project's issues, so is not assigned.
    saved: {
      labels: ["bug", "ui"],
      assignees: [developer.username],
      assignee: developer.username,
      milestone: "v1",
      due_date: "2030-01-31",
      task_completion_status: { count: 2, completed_count: 1 },
      has_tasks: true,
    },
    fetched: {
      labels: ["bug", "ui"],
      milestone_id: true,
      references: { short: "#1", relative: "#1", full: `${project.path_with_namespace}#1` },
      type: "ISSUE",
    },
    detailed_labels: [
      ["bug", "#6699cc"],
      ["ui", "#6699cc"],
    ],
    closed: { state: "closed", closed_by: owner.username },
    developer_delete: 403,
    after_delete: 404,
  });
});

test("issue lists: the project's with GitLab's filters, and gl.issues.list for the caller's, assigned and all", async ({ request, baseURL }) => {
  const owner = await createUser(request);
  const developer = await createUser(request);
  const outsider = await createUser(request);
  const project = await createProject(request, owner.token, { visibility: "public" });
  await addMember(request, owner.token, project.id, developer.id, 30);
  const out = runPythonGitlab(
    `${prelude}
m = p.milestones.create({"title": "v1"})
crash = p.issues.create({"title": "Crash on start", "description": "It crashes", "labels": ["bug", "critical"], "assignee_ids": [args["developer"]], "milestone_id": m.id})
slow = p.issues.create({"title": "Slow search", "labels": "bug"})
docs = as_user(args["developer_token"]).projects.get(args["project"], lazy=True).issues.create({"title": "Document the API", "labels": ["docs"], "assignee_id": args["owner"]})
secret = p.issues.create({"title": "Leaked key", "confidential": True, "labels": ["bug"]})
old = p.issues.create({"title": "Old crash"})
old.state_event = "close"
old.save()

def titles(issues):
    return [i.title for i in issues]

out["bug_open"] = titles(p.issues.list(labels=["bug"], state="opened", get_all=True))
out["bug_and_critical"] = titles(p.issues.list(labels=["bug", "critical"], get_all=True))
out["no_label"] = titles(p.issues.list(labels="None", get_all=True))
out["milestone"] = titles(p.issues.list(milestone="v1", get_all=True))
out["no_milestone_closed"] = titles(p.issues.list(milestone="None", state="closed", get_all=True))
out["assignee"] = titles(p.issues.list(assignee_id=args["developer"], get_all=True))
out["unassigned"] = titles(p.issues.list(assignee_id="None", get_all=True))
out["author"] = titles(p.issues.list(author_id=args["developer"], get_all=True))
out["search"] = titles(p.issues.list(search="crash", get_all=True))
out["search_description"] = titles(p.issues.list(search="crashes", get_all=True))
out["search_in_title"] = titles(p.issues.list(search="crashes", **{"in": "title"}, get_all=True))
out["iids"] = titles(p.issues.list(iids=[crash.iid, docs.iid], get_all=True))
out["confidential"] = titles(p.issues.list(confidential=True, get_all=True))
out["title_asc"] = titles(p.issues.list(order_by="title", sort="asc", get_all=True))
out["created_after"] = titles(p.issues.list(created_after=docs.created_at, get_all=True))
out["updated_before"] = titles(p.issues.list(updated_before=crash.updated_at, get_all=True))
out["paged"] = titles(p.issues.list(per_page=2, page=2))
out["mine"] = titles(gl.issues.list(get_all=True))
out["assigned_to_me"] = titles(gl.issues.list(scope="assigned_to_me", get_all=True))
# Other tests' public projects have issues labelled bug too: these lists are narrowed to this test's owner.
out["all_bugs"] = titles(gl.issues.list(scope="all", labels="bug", author_id=args["owner"], get_all=True))
out["outsider_all_bugs"] = titles(as_user(args["outsider_token"]).issues.list(scope="all", labels="bug", author_id=args["owner"], get_all=True))
out["anonymous_all"] = titles(gitlab.Gitlab(os.environ["GITLAB_URL"]).issues.list(scope="all", author_id=args["developer"], get_all=True))
try:
    gitlab.Gitlab(os.environ["GITLAB_URL"]).issues.list()
except gitlab.exceptions.GitlabAuthenticationError as error:
    out["anonymous_mine"] = error.response_code
`,
    {
      baseURL: baseURL!,
      token: owner.token,
      args: { project: project.id, owner: owner.id, developer: developer.id, developer_token: developer.token, outsider_token: outsider.token },
    },
  );
  expect(out).toEqual({
    bug_open: ["Leaked key", "Slow search", "Crash on start"],
    bug_and_critical: ["Crash on start"],
    no_label: ["Old crash"],
    milestone: ["Crash on start"],
    no_milestone_closed: ["Old crash"],
    assignee: ["Crash on start"],
    unassigned: ["Old crash", "Leaked key", "Slow search"],
    author: ["Document the API"],
    search: ["Old crash", "Crash on start"],
    search_description: ["Crash on start"],
    search_in_title: [],
    iids: ["Document the API", "Crash on start"],
    confidential: ["Leaked key"],
    title_asc: ["Crash on start", "Document the API", "Leaked key", "Old crash", "Slow search"],
    created_after: ["Old crash", "Leaked key", "Document the API"],
    updated_before: ["Crash on start"],
    paged: ["Document the API", "Slow search"],
    mine: ["Old crash", "Leaked key", "Slow search", "Crash on start"],
    assigned_to_me: ["Document the API"],
    all_bugs: ["Leaked key", "Slow search", "Crash on start"],
    // Not a member: the confidential issue is not theirs to see.
    outsider_all_bugs: ["Slow search", "Crash on start"],
    anonymous_all: ["Document the API"],
    anonymous_mine: 401,
  });
});

test("notes: list (newest first), get, edit and delete through the issue; others' notes are not theirs to edit", async ({ request, baseURL }) => {
  const owner = await createUser(request);
  const reporter = await createUser(request);
  const project = await createProject(request, owner.token, { visibility: "public" });
  await addMember(request, owner.token, project.id, reporter.id, 20);
  const out = runPythonGitlab(
    `${prelude}
iss = p.issues.create({"title": "Talk"})
first = iss.notes.create({"body": "first"})
second = iss.notes.create({"body": "second"})
out["listed"] = [n.body for n in iss.notes.list(get_all=True)]
out["ascending"] = [n.body for n in iss.notes.list(sort="asc", get_all=True)]
out["count"] = p.issues.get(iss.iid).user_notes_count
n = iss.notes.get(first.id)
out["got"] = {"body": n.body, "author": n.author["username"], "noteable_iid": n.noteable_iid, "internal": n.internal}
n.body = "y"
n.save()
out["edited"] = [n.body, iss.notes.get(first.id).body]

as_reporter = as_user(args["reporter_token"]).projects.get(args["project"], lazy=True).issues.get(iss.iid, lazy=True)
theirs = as_reporter.notes.get(second.id)
theirs.body = "hijacked"
try:
    theirs.save()
except gitlab.exceptions.GitlabUpdateError as error:
    out["reporter_edit"] = error.response_code
try:
    theirs.delete()
except gitlab.exceptions.GitlabDeleteError as error:
    out["reporter_delete"] = error.response_code

n.delete()
out["after_delete"] = [note.body for note in iss.notes.list(get_all=True)]
try:
    iss.notes.get(first.id)
except gitlab.exceptions.GitlabGetError as error:
    out["deleted_get"] = error.response_code
`,
    { baseURL: baseURL!, token: owner.token, args: { project: project.id, reporter_token: reporter.token } },
  );
  expect(out).toEqual({
    listed: ["second", "first"],
    ascending: ["first", "second"],
    count: 2,
    got: { body: "first", author: owner.username, noteable_iid: 1, internal: false },
    edited: ["y", "y"],
    reporter_edit: 403,
    reporter_delete: 403,
    after_delete: ["second"],
    deleted_get: 404,
  });
});

test("internal notes: a Guest listing gets none of them, and getting, editing or deleting one is 404", async ({ request, baseURL }) => {
  const owner = await createUser(request);
  const guest = await createUser(request);
  const project = await createProject(request, owner.token, { visibility: "public" });
  await addMember(request, owner.token, project.id, guest.id, 10);
  const out = runPythonGitlab(
    `${prelude}
iss = p.issues.create({"title": "Public issue"})
iss.notes.create({"body": "for everyone"})
secret = iss.notes.create({"body": args["secret"], "internal": True})
out["owner_sees"] = [(n.body, n.internal) for n in iss.notes.list(get_all=True)]

as_guest = as_user(args["guest_token"]).projects.get(args["project"], lazy=True).issues.get(iss.iid, lazy=True)
listed = as_guest.notes.list(get_all=True)
out["guest_sees"] = [n.body for n in listed]
out["guest_count"] = as_user(args["guest_token"]).projects.get(args["project"], lazy=True).issues.get(iss.iid).user_notes_count
try:
    as_guest.notes.get(secret.id)
except gitlab.exceptions.GitlabGetError as error:
    out["guest_get"] = [error.response_code, str(error.error_message)]
try:
    as_guest.notes.update(secret.id, {"body": "overwritten"})
except gitlab.exceptions.GitlabUpdateError as error:
    out["guest_edit"] = error.response_code
try:
    as_guest.notes.delete(secret.id)
except gitlab.exceptions.GitlabDeleteError as error:
    out["guest_delete"] = error.response_code
out["still_there"] = iss.notes.get(secret.id).body
`,
    { baseURL: baseURL!, token: owner.token, args: { project: project.id, guest_token: guest.token, secret: "internal-only-words" } },
  );
  expect(out).toEqual({
    owner_sees: [
      ["internal-only-words", true],
      ["for everyone", false],
    ],
    guest_sees: ["for everyone"],
    guest_count: 1,
    guest_get: [404, "404 Note Not Found"],
    guest_edit: 404,
    guest_delete: 404,
    still_there: "internal-only-words",
  });
});

test("labels: create, list with counts, get by name, edit with save(), delete", async ({ request, baseURL }) => {
  const owner = await createUser(request);
  const project = await createProject(request, owner.token);
  const out = runPythonGitlab(
    `${prelude}
bug = p.labels.create({"name": "bug", "color": "#d9534f", "description": "Something broke"})
out["created"] = {"name": bug.name, "color": bug.color, "description": bug.description, "text_color": bug.text_color, "priority": bug.priority}
try:
    p.labels.create({"name": "bug", "color": "#000000"})
except gitlab.exceptions.GitlabCreateError as error:
    out["duplicate"] = [error.response_code, str(error.error_message)]
p.issues.create({"title": "one", "labels": "bug,ui"})
out["listed"] = [(l.name, l.open_issues_count, l.closed_issues_count) for l in p.labels.list(with_counts=True, get_all=True)]
out["searched"] = [l.name for l in p.labels.list(search="broke", get_all=True)]
label = p.labels.get("bug")
label.new_name = "defect"
label.color = "#FFFFFF"
label.save()
out["saved"] = [label.name, label.color, label.text_color]
out["issue_labels"] = p.issues.get(1).labels
p.labels.get("defect").delete()
out["after_delete"] = [l.name for l in p.labels.list(get_all=True)]
out["issue_after"] = p.issues.get(1).labels
`,
    { baseURL: baseURL!, token: owner.token, args: { project: project.id } },
  );
  expect(out).toEqual({
    created: { name: "bug", color: "#d9534f", description: "Something broke", text_color: "#FFFFFF", priority: null },
    duplicate: [409, "Label already exists"],
    listed: [
      ["bug", 1, 0],
      ["ui", 1, 0],
    ],
    searched: ["bug"],
    saved: ["defect", "#FFFFFF", "#1F1E24"],
    issue_labels: ["defect", "ui"],
    after_delete: ["ui"],
    issue_after: ["ui"],
  });
});

test("milestones: list by state and title, the milestone's issues, close with save(), delete", async ({ request, baseURL }) => {
  const owner = await createUser(request);
  const project = await createProject(request, owner.token);
  const out = runPythonGitlab(
    `${prelude}
v1 = p.milestones.create({"title": "v1", "due_date": "2030-01-01"})
v2 = p.milestones.create({"title": "v2", "description": "Second release"})
p.issues.create({"title": "planned", "milestone_id": v1.id})
p.issues.create({"title": "unplanned"})
v2.state_event = "close"
v2.save()
out["active"] = [m.title for m in p.milestones.list(state="active", get_all=True)]
out["closed"] = [m.title for m in p.milestones.list(state="closed", get_all=True)]
out["by_title"] = [m.iid for m in p.milestones.list(title="v2", get_all=True)]
out["search"] = [m.title for m in p.milestones.list(search="release", get_all=True)]
out["issues"] = [(i.title, i.milestone["title"]) for i in v1.issues()]
out["fetched"] = {"title": v1.title, "state": v1.state, "expired": v1.expired, "due_date": v1.due_date, "created_at": v1.created_at}
v1.delete()
out["after_delete"] = [m.title for m in p.milestones.list(get_all=True)]
out["issue_after"] = p.issues.get(1).milestone
`,
    { baseURL: baseURL!, token: owner.token, args: { project: project.id } },
  );
  expect(out).toEqual({
    active: ["v1"],
    closed: ["v2"],
    by_title: [2],
    search: ["v2"],
    issues: [["planned", "v1"]],
    fetched: { title: "v1", state: "active", expired: false, due_date: "2030-01-01", created_at: isoTimestamp },
    after_delete: ["v2"],
    issue_after: null,
  });
});
