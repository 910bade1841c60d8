import { describe, expect, it, vi } from "vitest";
import { eq, inArray, sql } from "drizzle-orm";
import { outboxBodies, outboxMessages, projectHooks, webHookLogs } from "@/lib/db/schema";
import { env } from "@/lib/env";
import { ForbiddenError, NotFoundError, TooManyRequestsError, UnprocessableError, ValidationError } from "@/lib/errors";
import { recordPushEvents } from "@/lib/git/push-events";
import { listRefs, repositoryPath } from "@/lib/git/repositories";
import { createIntegration } from "@/lib/alerts/integrations";
import { updateAlertSettings } from "@/lib/alerts/settings";
import { sendTestAlert } from "@/lib/alerts/test-alert";
import { createIssue, updateIssue } from "@/lib/issues/issues";
import { createMilestone, deleteMilestone, updateMilestone } from "@/lib/issues/milestones";
import { createNote } from "@/lib/issues/notes";
import { removeExpiredMemberships } from "@/lib/projects/expired-members";
import { addMember, removeMember, updateMember } from "@/lib/projects/members";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { apiFailure, createTestUser, userContext } from "@/lib/testing/fixtures";
import { pushBranches } from "@/lib/testing/git";
import { startHookReceiver } from "@/lib/testing/hook-receiver";
import { senderSuite } from "@/lib/testing/outbox-senders";
import { webHookSender } from "./delivery";
import { pruneMessages } from "@/lib/outbox/outbox";
import { webHookEventTopic, webHookFanOut, webHookTopic } from "./enqueue";
import { createHook, deleteHook, getHook, listHooks, serializeHook, updateHook } from "./hooks";
import { listHookLogs, resendHookLog } from "./logs";
import { testHook } from "./test-hooks";

const repositoriesRoot = vi.hoisted(() => {
  const root = `${process.env.TMPDIR ?? "/tmp"}/webhooks-test-repositories-${process.pid}-${Date.now()}`;
  process.env.REPOSITORIES_DIR = root;
  return root;
});

const page = { page: 1, perPage: 20, offset: 0 };
const uuid = expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
const hookTime = expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);

describe.each(testDatabases())("project webhooks on $name", ({ open }) => {
  const handle = databaseForSuite(open);
  const { allowLocalNetwork, projectWithOwner, deliverAll } = senderSuite(handle, { [webHookEventTopic]: webHookFanOut(), [webHookTopic]: webHookSender() }, { repositoriesRoot, projectName: "Hooked" });

  it("manages hooks as GitLab's API does: Maintainers only, the token write-only, custom headers by name", async () => {
    const { owner, ctx, view, reference } = await projectWithOwner();
    const created = await createHook(ctx, reference, {
      url: "https://example.com/hook",
      name: "Deploys",
      token: "s3cret",
      issues_events: true,
      push_events_branch_filter: "release/*",
      custom_headers: [{ key: "Authorization", value: "Bearer abc" }],
      job_events: true,
    });
    expect(await serializeHook(ctx, created)).toEqual({
      id: created.hook.id,
      url: "https://example.com/hook",
      name: "Deploys",
      description: null,
      created_at: created.hook.createdAt.toISOString(),
      push_events: true,
      tag_push_events: false,
      merge_requests_events: false,
      repository_update_events: false,
      enable_ssl_verification: true,
      alert_status: "executable",
      disabled_until: null,
      url_variables: [],
      push_events_branch_filter: "release/*",
      branch_filter_strategy: "wildcard",
      custom_webhook_template: null,
      custom_headers: [{ key: "Authorization" }],
      project_id: view.project.id,
      issues_events: true,
      confidential_issues_events: false,
      note_events: false,
      confidential_note_events: false,
      pipeline_events: false,
      wiki_page_events: false,
      deployment_events: false,
      feature_flag_events: false,
      job_events: true,
      releases_events: false,
      milestone_events: false,
      emoji_events: false,
      resource_access_token_events: false,
      resource_deploy_token_events: false,
      vulnerability_events: false,
      member_events: false,
    });
    const [stored] = await handle.db.select().from(projectHooks).where(eq(projectHooks.id, created.hook.id));
    expect(stored?.tokenCiphertext).not.toContain("s3cret");
    expect(stored?.customHeadersCiphertext).not.toContain("Bearer");

    // A new URL without a token drops the old token and headers.
    const moved = await updateHook(ctx, reference, created.hook.id, { url: "https://example.org/other" });
    expect(moved.hook.tokenCiphertext).toBeNull();
    expect(moved.hook.customHeadersCiphertext).toBeNull();

    await expect(createHook(ctx, reference, { url: "ftp://example.com" })).rejects.toThrow(new UnprocessableError("Invalid url given"));
    await expect(createHook(ctx, reference, { url: "https://user:secret@example.com/hook" })).rejects.toThrow(new UnprocessableError("Invalid url given"));
    await expect(createHook(ctx, reference, { url: "https://example.com", branch_filter_strategy: "regex", push_events_branch_filter: "(" })).rejects.toThrow(
      new UnprocessableError("Invalid branch filter given"),
    );
    expect(await apiFailure(createHook(ctx, reference, { url: "https://example.com", name: "x".repeat(256) }))).toBeInstanceOf(ValidationError);
    await allowLocalNetwork(false);
    await expect(createHook(ctx, reference, { url: "http://127.0.0.1:9/" })).rejects.toThrow(new UnprocessableError("Invalid url given"));
    await expect(createHook(ctx, reference, { url: "http://[::ffff:10.0.0.1]/" })).rejects.toThrow(new UnprocessableError("Invalid url given"));
    await allowLocalNetwork(true);

    const developer = await createTestUser(handle.db);
    await addMember(ctx, reference, { userId: developer.id, accessLevel: 30 });
    await expect(listHooks(userContext(handle.db, developer), reference, page)).rejects.toThrow(ForbiddenError);
    const stranger = await createTestUser(handle.db);
    await expect(getHook(userContext(handle.db, stranger), reference, created.hook.id)).rejects.toThrow(NotFoundError);

    expect((await listHooks(ctx, reference, page)).items.map((item) => item.hook.id)).toEqual([created.hook.id]);
    await deleteHook(ctx, reference, created.hook.id);
    await expect(getHook(ctx, reference, created.hook.id)).rejects.toThrow(NotFoundError);
    expect(owner.id).toBeGreaterThan(0);
  });

  it("sends issue, note, milestone and member events with GitLab's payloads and headers", async () => {
    const receiver = await startHookReceiver();
    try {
      const { owner, ctx, view, reference } = await projectWithOwner();
      const hook = await createHook(ctx, reference, {
        url: `${receiver.url}/all`,
        token: "tok",
        push_events: false,
        issues_events: true,
        note_events: true,
        milestone_events: true,
        member_events: true,
        custom_headers: [{ key: "X-Custom", value: "custom value" }],
      });
      const confidentialOnly = await createHook(ctx, reference, { url: `${receiver.url}/confidential`, push_events: false, confidential_issues_events: true, confidential_note_events: true });

      const issue = await createIssue(ctx, reference, { title: "Broken build", description: "It fails", labels: ["bug"] });
      // A context per change, each with its own clock, as requests have.
      await updateIssue(userContext(handle.db, owner), reference, issue.issue.iid, { title: "Broken build on main" });
      await updateIssue(userContext(handle.db, owner), reference, issue.issue.iid, { stateEvent: "close" });
      const note = await createNote(ctx, reference, issue.issue.iid, { body: "Looking into it" });
      const secret = await createIssue(ctx, reference, { title: "Leaked key", confidential: true });
      await createNote(ctx, reference, secret.issue.iid, { body: "Rotated" });
      const milestone = await createMilestone(ctx, reference, { title: "v1.0", dueDate: "2030-06-30" });
      await updateMilestone(ctx, reference, milestone.milestone.id, { stateEvent: "close" });
      await deleteMilestone(ctx, reference, milestone.milestone.id);
      const member = await createTestUser(handle.db);
      await addMember(ctx, reference, { userId: member.id, accessLevel: 30, expiresAt: "2031-01-01" });
      await updateMember(ctx, reference, member.id, { accessLevel: 40 });
      await removeMember(ctx, reference, member.id);

      await deliverAll();
      const all = receiver.received.filter((request) => request.path === "/all");
      const confidential = receiver.received.filter((request) => request.path === "/confidential");
      expect(all.map((request) => request.headers["x-gitlab-event"])).toEqual([
        "Issue Hook",
        "Issue Hook",
        "Issue Hook",
        "Note Hook",
        "Milestone Hook",
        "Milestone Hook",
        "Milestone Hook",
        "Member Hook",
        "Member Hook",
        "Member Hook",
      ]);
      expect(confidential.map((request) => request.headers["x-gitlab-event"])).toEqual(["Confidential Issue Hook", "Confidential Note Hook"]);

      const [opened, edited, closed, commented] = all;
      expect(opened!.headers).toMatchObject({
        "content-type": "application/json",
        "user-agent": "GitLab/16.10.0",
        "x-gitlab-token": "tok",
        "x-gitlab-instance": env.EXTERNAL_URL,
        "x-gitlab-webhook-uuid": uuid,
        "x-gitlab-event-uuid": uuid,
        "idempotency-key": uuid,
        "x-custom": "custom value",
      });
      expect(confidential[0]!.headers["x-gitlab-token"]).toBeUndefined();
      const webUrl = `${env.EXTERNAL_URL}/${view.namespace.path}/${view.project.path}`;
      const project = {
        id: view.project.id,
        name: view.project.name,
        description: view.project.description,
        web_url: webUrl,
        avatar_url: null,
        git_ssh_url: null,
        git_http_url: `${webUrl}.git`,
        namespace: view.namespace.name,
        visibility_level: 0,
        path_with_namespace: `${view.namespace.path}/${view.project.path}`,
        default_branch: "main",
        ci_config_path: null,
        homepage: webUrl,
        url: `${webUrl}.git`,
        ssh_url: null,
        http_url: `${webUrl}.git`,
      };
      const user = { id: owner.id, name: owner.name, username: owner.username, avatar_url: `${env.EXTERNAL_URL}/-/avatars/${owner.id}`, email: "[REDACTED]" };
      const label = {
        id: expect.any(Number),
        title: "bug",
        color: expect.stringMatching(/^#[0-9a-fA-F]{6}$/),
        project_id: view.project.id,
        created_at: hookTime,
        updated_at: hookTime,
        template: false,
        description: null,
        type: "ProjectLabel",
        group_id: null,
      };
      const attributes = {
        author_id: owner.id,
        closed_at: null,
        confidential: false,
        created_at: hookTime,
        description: "It fails",
        discussion_locked: null,
        due_date: null,
        id: issue.issue.id,
        iid: issue.issue.iid,
        last_edited_at: null,
        last_edited_by_id: null,
        milestone_id: null,
        moved_to_id: null,
        duplicated_to_id: null,
        project_id: view.project.id,
        relative_position: null,
        state_id: 1,
        time_estimate: 0,
        title: "Broken build",
        updated_at: hookTime,
        updated_by_id: null,
        url: `${webUrl}/-/issues/${issue.issue.iid}`,
        total_time_spent: 0,
        time_change: 0,
        human_total_time_spent: null,
        human_time_change: null,
        human_time_estimate: null,
        assignee_ids: [],
        assignee_id: null,
        labels: [label],
        state: "opened",
        severity: "unknown",
        type: "Issue",
      };
      expect(opened!.body).toEqual({
        object_kind: "issue",
        event_type: "issue",
        user,
        project,
        object_attributes: { ...attributes, action: "open" },
        labels: [label],
        changes: {
          author_id: { previous: null, current: owner.id },
          created_at: { previous: null, current: hookTime },
          description: { previous: null, current: "It fails" },
          id: { previous: null, current: issue.issue.id },
          iid: { previous: null, current: issue.issue.iid },
          project_id: { previous: null, current: view.project.id },
          title: { previous: null, current: "Broken build" },
          updated_at: { previous: null, current: hookTime },
        },
        repository: { name: view.project.name, url: `${webUrl}.git`, description: view.project.description, homepage: webUrl },
      });
      expect(edited!.body).toMatchObject({
        object_attributes: { title: "Broken build on main", action: "update" },
        changes: { title: { previous: "Broken build", current: "Broken build on main" } },
      });
      expect(Object.keys((edited!.body as { changes: object }).changes).sort()).toEqual(["title", "updated_at"]);
      expect(closed!.body).toMatchObject({
        object_attributes: { state: "closed", state_id: 2, closed_at: hookTime, action: "close" },
        changes: { state_id: { previous: 1, current: 2 }, closed_at: { previous: null, current: hookTime } },
      });
      expect(commented!.body).toEqual({
        object_kind: "note",
        event_type: "note",
        user,
        project_id: view.project.id,
        project,
        object_attributes: {
          attachment: null,
          author_id: owner.id,
          change_position: null,
          commit_id: null,
          created_at: hookTime,
          discussion_id: expect.stringMatching(/^[0-9a-f]{40}$/),
          id: note.note.id,
          line_code: null,
          note: "Looking into it",
          noteable_id: issue.issue.id,
          noteable_type: "Issue",
          original_position: null,
          position: null,
          project_id: view.project.id,
          resolved_at: null,
          resolved_by_id: null,
          resolved_by_push: null,
          st_diff: null,
          system: false,
          type: null,
          updated_at: hookTime,
          updated_by_id: null,
          internal: false,
          description: "Looking into it",
          url: `${webUrl}/-/issues/${issue.issue.iid}#note_${note.note.id}`,
          action: "create",
        },
        repository: { name: view.project.name, url: `${webUrl}.git`, description: view.project.description, homepage: webUrl },
        issue: { ...attributes, title: "Broken build on main", state: "closed", state_id: 2, closed_at: hookTime },
      });
      expect(confidential[0]!.body).toMatchObject({ object_kind: "issue", event_type: "confidential_issue", object_attributes: { confidential: true } });
      expect(confidential[1]!.body).toMatchObject({ object_kind: "note", event_type: "confidential_note" });

      expect(all[4]!.body).toEqual({
        object_kind: "milestone",
        event_type: "milestone",
        project,
        object_attributes: {
          id: milestone.milestone.id,
          iid: milestone.milestone.iid,
          title: "v1.0",
          description: null,
          state: "active",
          created_at: hookTime,
          updated_at: hookTime,
          due_date: "2030-06-30",
          start_date: null,
          group_id: null,
          project_id: view.project.id,
        },
        action: "create",
      });
      expect(all.slice(5, 7).map((request) => (request.body as { action: string }).action)).toEqual(["close", "delete"]);
      expect(all[7]!.body).toEqual({
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
        updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
        project_name: view.project.name,
        project_path: view.project.path,
        project_path_with_namespace: `${view.namespace.path}/${view.project.path}`,
        project_id: view.project.id,
        user_username: member.username,
        user_name: member.name,
        user_email: "[REDACTED]",
        user_id: member.id,
        access_level: "Developer",
        project_visibility: "private",
        expires_at: "2031-01-01T00:00:00Z",
        event_name: "user_add_to_project",
      });
      expect(all.slice(8).map((request) => [(request.body as { event_name: string }).event_name, (request.body as { access_level: string }).access_level])).toEqual([
        ["user_update_for_project", "Maintainer"],
        ["user_remove_from_project", "Maintainer"],
      ]);

      // Every delivery is logged, secrets redacted, and the outbox is empty again.
      const logs = await listHookLogs(ctx, reference, hook.hook.id, {}, page);
      expect(logs.total).toBe(10);
      expect(logs.items[0]).toMatchObject({ responseStatus: "200", requestHeaders: { "X-Gitlab-Token": "[REDACTED]", "X-Custom": "[REDACTED]" } });
      expect(await handle.db.select().from(outboxMessages).where(eq(outboxMessages.orderingKey, `web_hook:${hook.hook.id}`))).toEqual([]);
      expect((await listHookLogs(ctx, reference, confidentialOnly.hook.id, { status: ["server_failure"] }, page)).total).toBe(0);
    } finally {
      await receiver.close();
    }
  });

  it("sends push and tag push hooks with the pushed commits, and none for a push of more than three like refs", async () => {
    const receiver = await startHookReceiver();
    try {
      const { owner, ctx, view, reference } = await projectWithOwner();
      await createHook(ctx, reference, { url: receiver.url, push_events: true, tag_push_events: true, push_events_branch_filter: "ma*" });
      const repository = repositoryPath(view.project.id);
      const before = new Map<string, string>();
      const heads = await pushBranches(view.project.id, { main: 2, feature: 1 });
      const zero = "0".repeat(40);
      await recordPushEvents(handle.db, {
        projectId: view.project.id,
        authorId: owner.id,
        repository,
        updates: [...heads].map(([branch, sha]) => ({ oldSha: zero, newSha: sha, ref: `refs/heads/${branch}` })),
        refsBefore: before,
        now: new Date(),
      });
      const many = await pushBranches(view.project.id, { a: 1, b: 1, c: 1, d: 1 });
      await recordPushEvents(handle.db, {
        projectId: view.project.id,
        authorId: owner.id,
        repository,
        updates: [...many].map(([branch, sha]) => ({ oldSha: zero, newSha: sha, ref: `refs/heads/${branch}` })),
        refsBefore: await listRefs(repository),
        now: new Date(),
      });
      await deliverAll();
      // `feature` is filtered out by the branch filter; the four-branch push sends nothing.
      expect(receiver.received).toHaveLength(1);
      const push = receiver.received[0]!;
      expect(push.headers["x-gitlab-event"]).toBe("Push Hook");
      const body = push.body as Record<string, unknown>;
      expect(body).toMatchObject({
        object_kind: "push",
        event_name: "push",
        before: zero,
        after: heads.get("main"),
        ref: "refs/heads/main",
        ref_protected: false,
        checkout_sha: heads.get("main"),
        message: null,
        user_id: owner.id,
        user_name: owner.name,
        user_username: owner.username,
        user_email: null,
        project_id: view.project.id,
        total_commits_count: 2,
        push_options: {},
      });
      expect(body.commits).toEqual([
        expect.objectContaining({ message: "main commit 1\n", title: "main commit 1", added: ["file.txt"], modified: [], removed: [], author: { name: "T", email: "t@example.com" } }),
        expect.objectContaining({ id: heads.get("main"), title: "main commit 2", added: [], modified: ["file.txt"], removed: [] }),
      ]);
      expect(Object.keys(body.repository as object)).toEqual(["name", "url", "description", "homepage", "git_http_url", "git_ssh_url", "visibility_level"]);
    } finally {
      await receiver.close();
    }
  });

  it("retries a failed delivery with the same Idempotency-Key, and disables a hook that keeps failing until a test succeeds", async () => {
    const receiver = await startHookReceiver({ statuses: [500, 200] });
    try {
      const { ctx, reference } = await projectWithOwner();
      const hook = await createHook(ctx, reference, { url: receiver.url, milestone_events: true });
      await createMilestone(ctx, reference, { title: "retried" });
      await deliverAll();
      expect(receiver.received).toHaveLength(1);
      const [message] = await handle.db.select().from(outboxMessages).where(eq(outboxMessages.orderingKey, `web_hook:${hook.hook.id}`));
      expect(message).toMatchObject({ attempts: 1, lastError: "HTTP 500", leasedUntil: null });
      expect(message!.availableAt.getTime()).toBeGreaterThan(Date.now() + 10_000);
      await handle.db.update(outboxMessages).set({ availableAt: new Date(0) }).where(eq(outboxMessages.id, message!.id));
      await deliverAll();
      expect(receiver.received).toHaveLength(2);
      expect(receiver.received[1]!.headers["idempotency-key"]).toBe(receiver.received[0]!.headers["idempotency-key"]);
      expect(receiver.received[1]!.headers["x-gitlab-webhook-uuid"]).not.toBe(receiver.received[0]!.headers["x-gitlab-webhook-uuid"]);
      expect((await getHook(ctx, reference, hook.hook.id)).hook).toMatchObject({ recentFailures: 0, disabledUntil: null });

      // Four failures in a row: temporarily disabled for a minute; a 2xx test brings it back.
      const failing = await startHookReceiver({ statuses: [500] });
      try {
        await updateHook(ctx, reference, hook.hook.id, { url: failing.url });
        for (let attempt = 0; attempt < 4; attempt += 1) {
          await expect(testHook(ctx, reference, hook.hook.id, "milestone_events")).rejects.toThrow(UnprocessableError);
        }
        const disabled = await getHook(ctx, reference, hook.hook.id);
        expect(disabled.hook.recentFailures).toBe(4);
        expect(disabled.hook.disabledUntil!.getTime() - Date.now()).toBeGreaterThan(50_000);
        expect(disabled.hook.disabledUntil!.getTime() - Date.now()).toBeLessThan(61_000);
        expect((await serializeHook(ctx, disabled)).alert_status).toBe("temporarily_disabled");
        // While disabled, new events are not queued for it (GitLab's executable scope): nothing at all is written.
        await createMilestone(ctx, reference, { title: "skipped" });
        expect(await handle.db.select().from(outboxMessages).where(inArray(outboxMessages.orderingKey, [`web_hook:${hook.hook.id}`, `web_hook_event:${hook.hook.projectId}`]))).toEqual([]);
      } finally {
        await failing.close();
      }
      await updateHook(ctx, reference, hook.hook.id, { url: receiver.url });
      await testHook(ctx, reference, hook.hook.id, "milestone_events");
      const enabled = await getHook(ctx, reference, hook.hook.id);
      expect(enabled.hook).toMatchObject({ recentFailures: 0, disabledUntil: null });

      const logs = await listHookLogs(ctx, reference, hook.hook.id, { status: ["server_failure"] }, page);
      expect(logs.items.every((log) => log.responseStatus === "500")).toBe(true);
      const resent = await resendHookLog(ctx, reference, hook.hook.id, logs.items[0]!.id);
      expect(resent).toEqual({ responseStatus: 200 });
      expect(receiver.received.at(-1)!.headers["idempotency-key"]).toBe(logs.items[0]!.requestHeaders["Idempotency-Key"]);
    } finally {
      await receiver.close();
    }
  });

  it("writes one message per change, naming the hooks that take it then, and fans it out to them in order", async () => {
    const receiver = await startHookReceiver();
    try {
      const { ctx, reference, view } = await projectWithOwner();
      const first = await createHook(ctx, reference, { url: `${receiver.url}/first`, push_events: false, milestone_events: true });
      const gone = await createHook(ctx, reference, { url: `${receiver.url}/gone`, push_events: false, milestone_events: true });
      await createHook(ctx, reference, { url: `${receiver.url}/issues`, push_events: false, issues_events: true });
      const waiting = () =>
        handle.db
          .select({ topic: outboxMessages.topic, orderingKey: outboxMessages.orderingKey, payload: outboxMessages.payload })
          .from(outboxMessages)
          .where(inArray(outboxMessages.orderingKey, [`web_hook_event:${view.project.id}`, `web_hook:${first.hook.id}`, `web_hook:${gone.hook.id}`]))
          .orderBy(outboxMessages.id);

      await createMilestone(ctx, reference, { title: "m1" });
      expect(await waiting()).toEqual([
        {
          topic: "web_hook_event",
          orderingKey: `web_hook_event:${view.project.id}`,
          payload: { trigger: "milestone_hooks", eventUuid: uuid, hookIds: [first.hook.id, gone.hook.id] },
        },
      ]);
      // A hook added after the change does not get it; one deleted before the fan-out gets nothing.
      const later = await createHook(ctx, reference, { url: `${receiver.url}/later`, push_events: false, milestone_events: true });
      await deleteHook(ctx, reference, gone.hook.id);
      await createMilestone(ctx, reference, { title: "m2" });
      await createMilestone(ctx, reference, { title: "m3" });
      const changes = await handle.db.select({ hookIds: sql`${outboxMessages.payload}->'hookIds'`, bodyId: outboxMessages.bodyId }).from(outboxMessages).where(eq(outboxMessages.orderingKey, `web_hook_event:${view.project.id}`)).orderBy(outboxMessages.id);
      expect(changes.map((change) => change.hookIds)).toEqual([[first.hook.id, gone.hook.id], [first.hook.id, later.hook.id], [first.hook.id, later.hook.id]]);

      await deliverAll();
      const received = receiver.received.map((request) => ({
        path: request.path,
        title: (request.body as { object_attributes: { title: string } }).object_attributes.title,
        eventUuid: request.headers["x-gitlab-event-uuid"],
      }));
      const byPath = (path: string) => received.filter((request) => request.path === path).map((request) => request.title);
      expect(byPath("/first")).toEqual(["m1", "m2", "m3"]);
      expect(byPath("/later")).toEqual(["m2", "m3"]);
      expect(received).toHaveLength(5);
      // Every hook a change went to got the same X-Gitlab-Event-UUID; each delivery its own Idempotency-Key.
      for (const title of ["m2", "m3"]) expect(new Set(received.filter((request) => request.title === title).map((request) => request.eventUuid)).size).toBe(1);
      expect(new Set(receiver.received.map((request) => request.headers["idempotency-key"])).size).toBe(5);
      expect(await waiting()).toEqual([]);
      // Each change's payload was written once and handed on to its deliveries; it goes with the last of them or, when
      // two hooks' last deliveries finish at once (each seeing the other's), with the next prune.
      expect(new Set(changes.map((change) => change.bodyId)).size).toBe(3);
      await pruneMessages(handle.db, { before: new Date(0) });
      expect(await handle.db.$count(outboxBodies, inArray(outboxBodies.id, changes.map((change) => change.bodyId!)))).toBe(0);
    } finally {
      await receiver.close();
    }
  });

  it("sends what a hook's custom template makes of the payload, and logs it; a template that makes no JSON fails the delivery", async () => {
    const receiver = await startHookReceiver();
    try {
      const { ctx, reference } = await projectWithOwner();
      const templated = await createHook(ctx, reference, {
        url: `${receiver.url}/templated`,
        push_events: false,
        milestone_events: true,
        custom_webhook_template: '{"text":"{{object_kind}}: {{object_attributes.title}}","id":{{object_attributes.iid}}}',
      });
      const broken = await createHook(ctx, reference, { url: `${receiver.url}/broken`, push_events: false, milestone_events: true, custom_webhook_template: '{"text":{{object_kind}}}' });
      await createMilestone(ctx, reference, { title: 'Say "hi"' });
      await deliverAll();
      expect(receiver.received.map((request) => ({ path: request.path, body: request.body }))).toEqual([{ path: "/templated", body: { text: 'milestone: Say "hi"', id: 1 } }]);
      const logOf = async (hookId: number) =>
        (await handle.db.select({ requestData: webHookLogs.requestData, status: webHookLogs.responseStatus, error: webHookLogs.internalErrorMessage }).from(webHookLogs).where(eq(webHookLogs.webHookId, hookId)))[0];
      expect(await logOf(templated.hook.id)).toEqual({ requestData: { text: 'milestone: Say "hi"', id: 1 }, status: "200", error: null });
      expect(await logOf(broken.hook.id)).toEqual({ requestData: {}, status: "internal error", error: expect.stringMatching(/^Error while parsing rendered custom webhook template: /) });
    } finally {
      await receiver.close();
    }
  });

  it("sends a hook's waiting deliveries in order over one connection; one that fails holds back those behind it until it succeeds", async () => {
    const receiver = await startHookReceiver({ statuses: [200, 500, 200] });
    try {
      const { ctx, reference } = await projectWithOwner();
      const hook = await createHook(ctx, reference, { url: receiver.url, push_events: false, milestone_events: true });
      for (const title of ["m1", "m2", "m3", "m4", "m5"]) await createMilestone(ctx, reference, { title });
      const titles = () => receiver.received.map((request) => (request.body as { object_attributes: { title: string } }).object_attributes.title);
      const waiting = () =>
        handle.db
          .select({ attempts: outboxMessages.attempts, lastError: outboxMessages.lastError, leasedUntil: outboxMessages.leasedUntil })
          .from(outboxMessages)
          .where(eq(outboxMessages.orderingKey, `web_hook:${hook.hook.id}`))
          .orderBy(outboxMessages.id);

      await deliverAll();
      expect(titles()).toEqual(["m1", "m2"]);
      expect(receiver.received[1]!.remotePort).toBe(receiver.received[0]!.remotePort);
      // The failed one waits for its retry; those behind it were handed back untried, their attempt not counted.
      expect(await waiting()).toEqual([
        { attempts: 1, lastError: "HTTP 500", leasedUntil: null },
        { attempts: 0, lastError: null, leasedUntil: null },
        { attempts: 0, lastError: null, leasedUntil: null },
        { attempts: 0, lastError: null, leasedUntil: null },
      ]);
      const logged = await handle.db.select({ status: webHookLogs.responseStatus }).from(webHookLogs).where(eq(webHookLogs.webHookId, hook.hook.id)).orderBy(webHookLogs.id);
      expect(logged).toEqual([{ status: "200" }, { status: "500" }]);

      await handle.db.update(outboxMessages).set({ availableAt: new Date(0) }).where(eq(outboxMessages.orderingKey, `web_hook:${hook.hook.id}`));
      await deliverAll();
      expect(titles()).toEqual(["m1", "m2", "m2", "m3", "m4", "m5"]);
      expect(new Set(receiver.received.slice(2).map((request) => request.remotePort)).size).toBe(1);
      expect(await waiting()).toEqual([]);
      expect(await handle.db.$count(webHookLogs, eq(webHookLogs.webHookId, hook.hook.id))).toBe(6);
    } finally {
      await receiver.close();
    }
  });

  it("sends the incidents alerts open and close to issue hooks, by the alert bot", async () => {
    const receiver = await startHookReceiver();
    try {
      const { ctx, reference } = await projectWithOwner();
      await createHook(ctx, reference, { url: receiver.url, push_events: false, issues_events: true });
      await updateAlertSettings(ctx, reference, { createIncident: true, autoCloseIncident: true });
      const integration = await createIntegration(ctx, reference, { name: "Monitoring", type: "http", active: true });
      await sendTestAlert(ctx, reference, integration.integration.id, { title: "Disk full", fingerprint: "disk" });
      await sendTestAlert(ctx, reference, integration.integration.id, { title: "Disk full", fingerprint: "disk", end_time: new Date().toISOString() });
      await deliverAll();
      const bodies = receiver.received.map((request) => request.body as { user: { username: string }; object_attributes: Record<string, unknown>; changes: object });
      expect(bodies.map((body) => [body.object_attributes.action, body.object_attributes.type, body.object_attributes.title, body.user.username])).toEqual([
        ["open", "Incident", "Disk full", "alert-bot"],
        ["close", "Incident", "Disk full", "alert-bot"],
      ]);
      expect(bodies[1]!.changes).toMatchObject({ state_id: { previous: 1, current: 2 } });
    } finally {
      await receiver.close();
    }
  });

  it("refuses a sixth test of one hook by one person within a minute, and a sixth resend in one project, as GitLab", async () => {
    const receiver = await startHookReceiver();
    try {
      const { ctx, reference } = await projectWithOwner();
      const hook = await createHook(ctx, reference, { url: receiver.url, milestone_events: true });
      const other = await createHook(ctx, reference, { url: receiver.url, milestone_events: true });
      await createMilestone(ctx, reference, { title: "sample" });
      for (let test = 0; test < 5; test += 1) await testHook(ctx, reference, hook.hook.id, "milestone_events");
      const refused = await testHook(ctx, reference, hook.hook.id, "milestone_events").catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(TooManyRequestsError);
      expect((refused as TooManyRequestsError).body()).toEqual({ message: { error: "This endpoint has been requested too many times. Try again later." } });
      expect(Number((refused as TooManyRequestsError).headers()["Retry-After"])).toBeGreaterThan(0);
      // Per hook: another hook of the project can still be tested.
      await testHook(ctx, reference, other.hook.id, "milestone_events");
      expect(receiver.received).toHaveLength(6);

      const [log] = (await listHookLogs(ctx, reference, other.hook.id, {}, page)).items;
      for (let resend = 0; resend < 5; resend += 1) await resendHookLog(ctx, reference, other.hook.id, log!.id);
      // Per project: resending another hook's delivery is refused too.
      const [firstHookLog] = (await listHookLogs(ctx, reference, hook.hook.id, {}, page)).items;
      await expect(resendHookLog(ctx, reference, hook.hook.id, firstHookLog!.id)).rejects.toThrow(TooManyRequestsError);
      expect(receiver.received).toHaveLength(11);
    } finally {
      await receiver.close();
    }
  });

  it("sends user_remove_from_project when the scheduled job removes an expired membership", async () => {
    const receiver = await startHookReceiver();
    try {
      const { ctx, reference, view } = await projectWithOwner();
      await createHook(ctx, reference, { url: receiver.url, push_events: false, member_events: true });
      const member = await createTestUser(handle.db);
      await addMember(ctx, reference, { userId: member.id, accessLevel: 30, expiresAt: "2031-01-01" });
      const removedAt = new Date("2031-01-01T08:00:00Z");
      expect(await removeExpiredMemberships(handle.db, removedAt)).toBeGreaterThanOrEqual(1);
      await deliverAll();
      expect(receiver.received.map((request) => request.body)).toEqual([
        expect.objectContaining({ event_name: "user_add_to_project", user_id: member.id }),
        expect.objectContaining({
          event_name: "user_remove_from_project",
          user_id: member.id,
          user_username: member.username,
          project_id: view.project.id,
          access_level: "Developer",
          expires_at: "2031-01-01T00:00:00Z",
        }),
      ]);
    } finally {
      await receiver.close();
    }
  });

  it("answers a test of a trigger the project has nothing for as GitLab does", async () => {
    const { ctx, reference } = await projectWithOwner();
    const hook = await createHook(ctx, reference, { url: "https://example.com/hook" });
    await expect(testHook(ctx, reference, hook.hook.id, "issues_events")).rejects.toThrow(new UnprocessableError("Ensure the project has issues."));
    await expect(testHook(ctx, reference, hook.hook.id, "merge_requests_events")).rejects.toThrow(new UnprocessableError("Ensure the project has merge requests."));
    await expect(testHook(ctx, reference, hook.hook.id, "push_events")).rejects.toThrow(new UnprocessableError("Ensure the project has at least one commit."));
    expect(await handle.db.select().from(webHookLogs).where(eq(webHookLogs.webHookId, hook.hook.id))).toEqual([]);
  });
});
