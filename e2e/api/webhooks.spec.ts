import { Gitlab } from "@gitbeaker/rest";
import { expect, test } from "@playwright/test";
import { startHookReceiver } from "../../lib/testing/hook-receiver";
import { addMember, allowLocalRequestsFromWebHooks, asToken, createProject, createUser, expectJson } from "../support/api";
import { GitSandbox, remoteUrl } from "../support/git";
import { requirePythonGitlab, runPythonGitlab } from "../support/python-gitlab";

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

test.describe("project webhooks", () => {
  let git: GitSandbox;
  test.beforeEach(async ({ request }) => {
    await allowLocalRequestsFromWebHooks(request);
    git = new GitSandbox();
  });
  test.afterEach(() => {
    git.dispose();
  });

  test("hooks made with gitbeaker receive an issue, a comment, a push, a tag and a member, with GitLab's payloads and headers", async ({ request, baseURL }) => {
    test.setTimeout(90_000);
    const receiver = await startHookReceiver();
    try {
      const owner = await createUser(request);
      const member = await createUser(request);
      const project = await createProject(request, owner.token);
      const api = new Gitlab({ host: baseURL!, token: owner.token });
      const hook = await api.ProjectHooks.add(project.id, `${receiver.url}/gitbeaker`, {
        token: "hook-secret",
        pushEvents: true,
        tagPushEvents: true,
        issuesEvents: true,
        noteEvents: true,
        ...({ memberEvents: true } as object),
      });
      expect(hook).toMatchObject({ url: `${receiver.url}/gitbeaker`, push_events: true, issues_events: true, alert_status: "executable", project_id: project.id });
      expect(hook).not.toHaveProperty("token");
      expect((await api.ProjectHooks.all(project.id)).map((listed) => listed.id)).toEqual([hook.id]);

      const issue = await api.Issues.create(project.id, "Hooked issue", { description: "From the test" });
      await api.IssueNotes.create(project.id, issue.iid, "A comment");
      const work = git.dir("work");
      await git.ok(["init", "--quiet", work]);
      const first = await git.commit(work, "README.md", "# Hooked\n", "First commit");
      const second = await git.commit(work, "a.txt", "a\n", "Second commit\n\nWith a body.");
      await git.ok(["tag", "-a", "v1.0", "-m", "Release 1.0"], work);
      await git.ok(["remote", "add", "origin", remoteUrl(baseURL!, project.path_with_namespace, { password: owner.token })], work);
      await git.ok(["push", "--quiet", "origin", "main"], work);
      await git.ok(["push", "--quiet", "origin", "v1.0"], work);
      await addMember(request, owner.token, project.id, member.id, 30);

      const received = await receiver.waitFor(5, 30_000);
      expect(received.map((request) => request.headers["x-gitlab-event"])).toEqual(["Issue Hook", "Note Hook", "Push Hook", "Tag Push Hook", "Member Hook"]);
      for (const delivery of received) {
        expect(delivery.headers["content-type"]).toBe("application/json");
        expect(delivery.headers["x-gitlab-token"]).toBe("hook-secret");
        expect(delivery.headers["user-agent"]).toMatch(/^GitLab\/\d+\.\d+\.\d+$/);
        expect(delivery.headers["x-gitlab-instance"]).toBe(baseURL);
        for (const name of ["x-gitlab-webhook-uuid", "x-gitlab-event-uuid", "idempotency-key"]) expect(delivery.headers[name]).toMatch(uuid);
      }
      const [opened, commented, pushed, tagged, joined] = received.map((request) => request.body as Record<string, unknown>);
      expect(opened).toMatchObject({
        object_kind: "issue",
        event_type: "issue",
        user: { id: owner.id, username: owner.username, email: "[REDACTED]" },
        project: { id: project.id, path_with_namespace: project.path_with_namespace, web_url: `${baseURL}/${project.path_with_namespace}` },
        object_attributes: { id: issue.id, iid: issue.iid, title: "Hooked issue", description: "From the test", state: "opened", action: "open", url: issue.web_url },
        labels: [],
        repository: { name: expect.any(String), homepage: `${baseURL}/${project.path_with_namespace}` },
      });
      expect(commented).toMatchObject({
        object_kind: "note",
        event_type: "note",
        project_id: project.id,
        object_attributes: { note: "A comment", noteable_type: "Issue", noteable_id: issue.id, action: "create" },
        issue: { id: issue.id, iid: issue.iid, title: "Hooked issue" },
      });
      expect(pushed).toMatchObject({
        object_kind: "push",
        event_name: "push",
        before: "0".repeat(40),
        after: second,
        ref: "refs/heads/main",
        checkout_sha: second,
        user_id: owner.id,
        user_username: owner.username,
        project_id: project.id,
        total_commits_count: 2,
        commits: [
          { id: first, message: "First commit\n", title: "First commit", author: { name: "E2E Author", email: "e2e@example.com" }, added: ["README.md"], modified: [], removed: [] },
          { id: second, title: "Second commit", url: `${baseURL}/${project.path_with_namespace}/-/commit/${second}`, added: ["a.txt"] },
        ],
      });
      expect(tagged).toMatchObject({
        object_kind: "tag_push",
        event_name: "tag_push",
        ref: "refs/tags/v1.0",
        checkout_sha: second,
        message: "Release 1.0\n",
        commits: [{ id: second }],
        total_commits_count: 1,
      });
      expect(joined).toMatchObject({
        event_name: "user_add_to_project",
        project_id: project.id,
        project_path_with_namespace: project.path_with_namespace,
        user_id: member.id,
        user_username: member.username,
        access_level: "Developer",
      });

      // The deliveries are logged (each once its answer is read), the token redacted, newest first.
      type Log = { id: number; trigger: string; response_status: string; request_headers: Record<string, string> };
      const readLogs = async () => {
        const events = await request.get(`/api/v4/projects/${project.id}/hooks/${hook.id}/events`, { headers: asToken(owner.token) });
        expect(events.status()).toBe(200);
        return (await events.json()) as Log[];
      };
      await expect.poll(async () => (await readLogs()).length).toBe(5);
      const logs = await readLogs();
      expect(logs.map((log) => [log.trigger, log.response_status])).toEqual([
        ["member_hooks", "200"],
        ["tag_push_hooks", "200"],
        ["push_hooks", "200"],
        ["note_hooks", "200"],
        ["issue_hooks", "200"],
      ]);
      expect(logs[0]!.request_headers["X-Gitlab-Token"]).toBe("[REDACTED]");

      const resent = await request.post(`/api/v4/projects/${project.id}/hooks/${hook.id}/events/${logs[4]!.id}/resend`, { headers: asToken(owner.token) });
      await expectJson(resent, 201, { response_status: 200 });
      const again = await receiver.waitFor(6);
      expect(again[5]!.headers["idempotency-key"]).toBe(received[0]!.headers["idempotency-key"]);
      expect(again[5]!.body).toEqual(received[0]!.body);

      const tested = await request.post(`/api/v4/projects/${project.id}/hooks/${hook.id}/test/issues_events`, { headers: asToken(owner.token) });
      await expectJson(tested, 201, { message: "201 Created" });
      const noMergeRequests = await request.post(`/api/v4/projects/${project.id}/hooks/${hook.id}/test/merge_requests_events`, { headers: asToken(owner.token) });
      await expectJson(noMergeRequests, 422, { message: "Ensure the project has merge requests." });

      // Maintainers only: a Developer is refused, a stranger learns nothing.
      const developerList = await request.get(`/api/v4/projects/${project.id}/hooks`, { headers: asToken(member.token) });
      await expectJson(developerList, 403, { message: "403 Forbidden" });
      const stranger = await createUser(request);
      const strangerList = await request.get(`/api/v4/projects/${project.id}/hooks`, { headers: asToken(stranger.token) });
      await expectJson(strangerList, 404, { message: "404 Project Not Found" });

      const invalid = await request.post(`/api/v4/projects/${project.id}/hooks`, { headers: asToken(owner.token), data: { url: "not a url" } });
      await expectJson(invalid, 422, { message: "Invalid url given" });
      await api.ProjectHooks.remove(project.id, hook.id);
      const gone = await request.get(`/api/v4/projects/${project.id}/hooks/${hook.id}`, { headers: asToken(owner.token) });
      await expectJson(gone, 404, { message: "404 Not Found" });
    } finally {
      await receiver.close();
    }
  });

  test("python-gitlab manages a project's hooks, and a confidential issue reaches only the confidential hook", async ({ request, baseURL }) => {
    requirePythonGitlab();
    const receiver = await startHookReceiver();
    try {
      const owner = await createUser(request);
      const project = await createProject(request, owner.token);
      const out = runPythonGitlab(
        [
          "project = gl.projects.get(args['project'])",
          "plain = project.hooks.create({'url': args['url'] + '/plain', 'issues_events': True, 'push_events': False})",
          "secret = project.hooks.create({'url': args['url'] + '/secret', 'confidential_issues_events': True, 'push_events': False, 'token': 't'})",
          "secret.name = 'Confidential'",
          "secret.save()",
          "out['hooks'] = [(hook.id, hook.url, hook.name, hook.issues_events, hook.confidential_issues_events) for hook in project.hooks.list()]",
        ].join("\n"),
        { baseURL: baseURL!, token: owner.token, args: { project: project.id, url: receiver.url } },
      );
      expect(out.hooks).toEqual([
        [expect.any(Number), `${receiver.url}/plain`, null, true, false],
        [expect.any(Number), `${receiver.url}/secret`, "Confidential", false, true],
      ]);
      const created = await request.post(`/api/v4/projects/${project.id}/issues`, { headers: asToken(owner.token), data: { title: "Hidden", confidential: true } });
      expect(created.status()).toBe(201);
      const [delivery] = await receiver.waitFor(1);
      expect(delivery!.path).toBe("/secret");
      expect(delivery!.headers["x-gitlab-event"]).toBe("Confidential Issue Hook");
      expect(delivery!.body).toMatchObject({ object_kind: "issue", event_type: "confidential_issue", object_attributes: { confidential: true } });
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(receiver.received).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });
});
