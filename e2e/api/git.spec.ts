import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { expect, test, type APIRequestContext } from "@playwright/test";
import { addMember, asToken, createProject, createToken, createUser } from "../support/api";
import { serverLogFile } from "../support/constants";
import { GitSandbox, remoteUrl } from "../support/git";
import { postInTurn } from "../support/http";

interface PushEvent {
  id: number;
  action_name: string;
  author_username: string;
  project_id: number;
  target_type: string | null;
  push_data: {
    commit_count: number;
    action: string;
    ref_type: string;
    commit_from: string | null;
    commit_to: string | null;
    ref: string;
    commit_title: string | null;
    ref_count: number | null;
  };
}

async function pushEvents(request: APIRequestContext, token: string, projectId: number): Promise<PushEvent[]> {
  const response = await request.get(`/api/v4/projects/${projectId}/events?action=pushed&sort=asc&per_page=100`, { headers: asToken(token) });
  expect(response.status(), await response.text()).toBe(200);
  return (await response.json()) as PushEvent[];
}

function basic(password: string, username = "oauth2"): Record<string, string> {
  return { Authorization: `Basic ${Buffer.from(`${username}:${password}`).toString("base64")}` };
}

test.describe("git over smart HTTP", () => {
  let git: GitSandbox;
  test.beforeEach(() => {
    git = new GitSandbox();
  });
  test.afterEach(() => {
    git.dispose();
  });

  test("pushing a new branch, more commits, a second branch and deleting it records push events that match the repository", async ({ request, baseURL }) => {
    const owner = await createUser(request);
    const project = await createProject(request, owner.token);
    const remote = remoteUrl(baseURL!, project.path_with_namespace, { password: owner.token });
    const work = git.dir("work");
    await git.ok(["init", "--quiet", work]);
    await git.commit(work, "README.md", "# Hello\n", "Initial commit");
    const second = await git.commit(work, "a.txt", "a\n", "Add a\n\nWith a body that is not the title.");
    await git.ok(["remote", "add", "origin", remote], work);
    await git.ok(["push", "--quiet", "origin", "main"], work);

    let events = await pushEvents(request, owner.token, project.id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      action_name: "pushed new",
      author_username: owner.username,
      project_id: project.id,
      target_type: null,
      push_data: { commit_count: 2, action: "created", ref_type: "branch", commit_from: null, commit_to: second, ref: "main", commit_title: "Add a", ref_count: null },
    });

    for (let index = 1; index <= 3; index += 1) await git.commit(work, "b.txt", `${index}\n`, `Change b ${index}`);
    const head = await git.ok(["rev-parse", "HEAD"], work);
    expect(await git.ok(["log", "-1", "--format=%s"], work)).toBe("Change b 3");
    await git.ok(["push", "--quiet", "origin", "main"], work);

    await git.ok(["checkout", "--quiet", "-b", "feature/x"], work);
    const featureHead = await git.commit(work, "c.txt", "c\n", "Feature work");
    await git.ok(["push", "--quiet", "origin", "feature/x"], work);
    await git.ok(["push", "--quiet", "origin", "--delete", "feature/x"], work);

    events = await pushEvents(request, owner.token, project.id);
    expect(events.map((event) => event.action_name)).toEqual(["pushed new", "pushed to", "pushed new", "deleted"]);
    expect(events[1]!.push_data).toEqual({
      commit_count: 3,
      action: "pushed",
      ref_type: "branch",
      commit_from: second,
      commit_to: head,
      ref: "main",
      commit_title: "Change b 3",
      ref_count: null,
    });
    // A branch made from main counts only its own commits.
    expect(events[2]!.push_data).toEqual({
      commit_count: 1,
      action: "created",
      ref_type: "branch",
      commit_from: null,
      commit_to: featureHead,
      ref: "feature/x",
      commit_title: "Feature work",
      ref_count: null,
    });
    expect(events[3]!.push_data).toEqual({
      commit_count: 0,
      action: "removed",
      ref_type: "branch",
      commit_from: featureHead,
      commit_to: null,
      ref: "feature/x",
      commit_title: null,
      ref_count: null,
    });

    // Tags are push events too.
    await git.ok(["tag", "v1.0", "main"], work);
    await git.ok(["push", "--quiet", "origin", "v1.0"], work);
    events = await pushEvents(request, owner.token, project.id);
    expect(events.at(-1)).toMatchObject({ action_name: "pushed new", push_data: { action: "created", ref_type: "tag", ref: "v1.0", commit_to: head, commit_title: "Change b 3" } });

    // The same events show on the pusher's own feed.
    const own = await request.get("/api/v4/events?action=pushed&sort=asc", { headers: asToken(owner.token) });
    expect(((await own.json()) as PushEvent[]).map((event) => event.id)).toEqual(events.map((event) => event.id));

    // A fresh clone gets exactly what was pushed, with main as the default branch.
    const clone = git.dir("clone");
    await git.ok(["clone", "--quiet", remote, clone]);
    expect(await git.ok(["rev-parse", "HEAD"], clone)).toBe(head);
    expect(await git.ok(["rev-parse", "--abbrev-ref", "HEAD"], clone)).toBe("main");
    expect(await git.ok(["ls-remote", "--heads", "origin"], clone)).not.toContain("feature/x");
  });

  test("a fetch with many local commits sends a gzip request body, which the server reads", async ({ request, baseURL }) => {
    const owner = await createUser(request);
    const project = await createProject(request, owner.token);
    const remote = remoteUrl(baseURL!, project.path_with_namespace, { password: owner.token });
    const first = git.dir("first");
    await git.ok(["init", "--quiet", first]);
    await git.commit(first, "f", "0\n", "start");
    await git.ok(["push", "--quiet", remote, "main"], first);

    const second = git.dir("second");
    await git.ok(["clone", "--quiet", remote, second]);
    // Local commits the server does not have become "have" lines: enough of them make git compress the request.
    for (let index = 0; index < 40; index += 1) await git.commit(second, "local", `${index}\n`, `local ${index}`);
    const upstream = await git.commit(first, "f", "1\n", "upstream change");
    await git.ok(["push", "--quiet", remote, "main"], first);
    await git.ok(["fetch", "--quiet", "origin"], second);
    expect(await git.ok(["rev-parse", "origin/main"], second)).toBe(upstream);
  });

  test("credentials: none gets a Basic challenge, a wrong password 401, a token without repository scope 401", async ({ request, baseURL }) => {
    const owner = await createUser(request);
    const project = await createProject(request, owner.token);
    const refs = `/${project.path_with_namespace}.git/info/refs?service=git-upload-pack`;

    const anonymous = await request.get(refs);
    expect(anonymous.status()).toBe(401);
    expect(anonymous.headers()["www-authenticate"]).toBe('Basic realm="GitLab"');

    const wrong = await request.get(refs, { headers: basic("not-a-token-at-all") });
    expect(wrong.status()).toBe(401);
    expect(wrong.headers()["www-authenticate"]).toBe('Basic realm="GitLab"');

    const readApi = await createToken(request, owner.id, ["read_api"]);
    expect((await request.get(refs, { headers: basic(readApi.token) })).status()).toBe(401);

    const good = await request.get(refs, { headers: basic(owner.token, owner.username) });
    expect(good.status()).toBe(200);
    expect(good.headers()["content-type"]).toBe("application/x-git-upload-pack-advertisement");

    const pushRefs = await request.get(`/${project.path_with_namespace}.git/info/refs?service=git-receive-pack`);
    expect(pushRefs.status()).toBe(401);

    // The real client says so too.
    const result = await git.run(["ls-remote", remoteUrl(baseURL!, project.path_with_namespace, { password: "wrong-password-here" })]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/Authentication failed/);
  });

  test("roles: Reporter clones a private project but cannot push; Guest cannot clone; strangers see nothing", async ({ request, baseURL }) => {
    const owner = await createUser(request);
    const reporter = await createUser(request);
    const guest = await createUser(request);
    const stranger = await createUser(request);
    const project = await createProject(request, owner.token, { visibility: "private" });
    await addMember(request, owner.token, project.id, reporter.id, 20);
    await addMember(request, owner.token, project.id, guest.id, 10);

    const work = git.dir("work");
    await git.ok(["init", "--quiet", work]);
    const head = await git.commit(work, "README.md", "private\n", "Private start");
    await git.ok(["push", "--quiet", remoteUrl(baseURL!, project.path_with_namespace, { password: owner.token }), "main"], work);

    const clone = git.dir("reporter-clone");
    await git.ok(["clone", "--quiet", remoteUrl(baseURL!, project.path_with_namespace, { password: reporter.token }), clone]);
    expect(await git.ok(["rev-parse", "HEAD"], clone)).toBe(head);
    await git.commit(clone, "README.md", "changed\n", "Reporter change");
    const push = await git.run(["push", "origin", "main"], clone);
    expect(push.code).not.toBe(0);
    expect(push.stderr).toMatch(/403|not allowed to push/);

    const receive = `/${project.path_with_namespace}.git/info/refs?service=git-receive-pack`;
    const reporterPush = await request.get(receive, { headers: basic(reporter.token) });
    expect(reporterPush.status()).toBe(403);
    expect(await reporterPush.text()).toContain("You are not allowed to push code to this project.");

    const upload = `/${project.path_with_namespace}.git/info/refs?service=git-upload-pack`;
    expect((await request.get(upload, { headers: basic(guest.token) })).status()).toBe(403);
    expect((await request.get(upload, { headers: basic(stranger.token) })).status()).toBe(404);
    expect((await request.get(receive, { headers: basic(stranger.token) })).status()).toBe(404);

    // A read_repository token pulls but never pushes, even for the owner.
    const readOnly = await createToken(request, owner.id, ["read_repository"]);
    expect((await request.get(upload, { headers: basic(readOnly.token) })).status()).toBe(200);
    expect((await request.get(receive, { headers: basic(readOnly.token) })).status()).toBe(403);
    const writeToken = await createToken(request, owner.id, ["write_repository"]);
    expect((await request.get(receive, { headers: basic(writeToken.token) })).status()).toBe(200);

    // No push events for the refused push.
    expect((await pushEvents(request, owner.token, project.id)).map((event) => event.action_name)).toEqual(["pushed new"]);
  });

  test("a project in a subgroup: an inherited Developer pushes and clones by its nested path; a Reporter of the group cannot push", async ({
    request,
    baseURL,
  }) => {
    const owner = await createUser(request);
    const developer = await createUser(request);
    const reporter = await createUser(request);
    const stranger = await createUser(request);
    const post = async (path: string, data: Record<string, unknown>) => {
      const response = await request.post(`/api/v4${path}`, { headers: asToken(owner.token), data });
      expect(response.status(), await response.text()).toBe(201);
      return (await response.json()) as { id: number; full_path?: string; path_with_namespace?: string };
    };
    const root = await post("/groups", { name: "Acme", path: `acme-${randomBytes(4).toString("hex")}` });
    const platform = await post("/groups", { name: "Platform", path: "platform", parent_id: root.id });
    const project = await post("/projects", { path: "api", namespace_id: platform.id });
    expect(project.path_with_namespace).toBe(`${root.full_path}/platform/api`);
    await post(`/groups/${root.id}/members`, { user_id: developer.id, access_level: 30 });
    await post(`/groups/${platform.id}/members`, { user_id: reporter.id, access_level: 20 });

    const work = git.dir("work");
    await git.ok(["init", "--quiet", work]);
    const head = await git.commit(work, "README.md", "nested\n", "Nested start");
    await git.ok(["push", "--quiet", remoteUrl(baseURL!, project.path_with_namespace!, { password: developer.token }), "main"], work);
    expect((await pushEvents(request, owner.token, project.id)).map((event) => [event.action_name, event.author_username])).toEqual([
      ["pushed new", developer.username],
    ]);

    const clone = git.dir("reporter-clone");
    await git.ok(["clone", "--quiet", remoteUrl(baseURL!, project.path_with_namespace!, { password: reporter.token }), clone]);
    expect(await git.ok(["rev-parse", "HEAD"], clone)).toBe(head);
    const receive = `/${project.path_with_namespace}.git/info/refs?service=git-receive-pack`;
    expect((await request.get(receive, { headers: basic(reporter.token) })).status()).toBe(403);
    expect((await request.get(receive, { headers: basic(stranger.token) })).status()).toBe(404);
    expect((await request.get(receive, { headers: basic(developer.token) })).status()).toBe(200);
  });

  test("public projects: anyone clones anonymously, nobody pushes anonymously", async ({ request, baseURL }) => {
    const owner = await createUser(request);
    const project = await createProject(request, owner.token, { visibility: "public" });
    const work = git.dir("work");
    await git.ok(["init", "--quiet", work]);
    const head = await git.commit(work, "README.md", "public\n", "Public start");
    await git.ok(["push", "--quiet", remoteUrl(baseURL!, project.path_with_namespace, { password: owner.token }), "main"], work);

    const clone = git.dir("anonymous-clone");
    await git.ok(["clone", "--quiet", remoteUrl(baseURL!, project.path_with_namespace), clone]);
    expect(await git.ok(["rev-parse", "HEAD"], clone)).toBe(head);
    await git.commit(clone, "README.md", "anonymous\n", "Anonymous change");
    const push = await git.run(["push", "origin", "main"], clone);
    expect(push.code).not.toBe(0);
    expect((await request.get(`/${project.path_with_namespace}.git/info/refs?service=git-receive-pack`)).status()).toBe(401);

    // Project events show pushes to anonymous readers of a public project.
    const events = await request.get(`/api/v4/projects/${project.id}/events?action=pushed`);
    expect(events.status()).toBe(200);
    expect(((await events.json()) as PushEvent[]).map((event) => event.push_data.commit_to)).toEqual([head]);
  });

  test("an upload-pack request that is not pkt-lines is 400 with a message, and a clone still works", async ({ request, baseURL }, testInfo) => {
    const owner = await createUser(request);
    const project = await createProject(request, owner.token);
    const remote = remoteUrl(baseURL!, project.path_with_namespace, { password: owner.token });
    const work = git.dir("work");
    await git.ok(["init", "--quiet", work]);
    const head = await git.commit(work, "README.md", "# Framing\n", "Start");
    await git.ok(["push", "--quiet", remote, "main"], work);

    const uploadPack = `/${project.path_with_namespace}.git/git-upload-pack`;
    const post = (body: Buffer) =>
      request.post(uploadPack, { headers: { ...basic(owner.token), "Content-Type": "application/x-git-upload-pack-request" }, data: body });
    const cases: [string, Buffer, string][] = [
      ["garbage", Buffer.from("garbage that is not a pkt-line\n"), 'Bad request: the body is not a git-upload-pack request (bad pkt-line length "garb").'],
      ["truncated", Buffer.from(`0032want ${head.slice(0, 20)}`), "Bad request: the git-upload-pack request ends inside a pkt-line."],
      ["empty", Buffer.alloc(0), "Bad request: the git-upload-pack request is empty."],
      ["length 3", Buffer.from("0003"), 'Bad request: the body is not a git-upload-pack request (bad pkt-line length "0003").'],
    ];
    for (const [name, body, message] of cases) {
      const response = await post(body);
      expect(response.status(), name).toBe(400);
      expect(response.headers()["content-type"], name).toBe("text/plain; charset=utf-8");
      expect(await response.text(), name).toBe(`${message}\n`);
    }
    // A lone flush-pkt is well framed: git itself sends one to probe the server before a large request.
    const probe = await post(Buffer.from("0000"));
    expect(probe.status()).toBe(200);
    expect(probe.headers()["content-type"]).toBe("application/x-git-upload-pack-result");

    const clone = git.dir("clone");
    await git.ok(["clone", "--quiet", remote, clone]);
    expect(await git.ok(["rev-parse", "HEAD"], clone)).toBe(head);
    // Refusing a body mid-stream leaves nothing behind in the server: it stopped reading cleanly.
    expect(readFileSync(serverLogFile(testInfo.project.name), "utf8")).not.toContain("uncaughtException");
  });

  test("garbage upload-pack bodies of any size on a public project are a clean 400 every time, on a connection that stays usable", async ({
    request,
    baseURL,
  }) => {
    const owner = await createUser(request);
    const project = await createProject(request, owner.token, { visibility: "public" });
    const sizes = [8, 100, 5_000, 70_000, 300_000];
    const bodies = Array.from({ length: 50 }, (_, index) => Buffer.concat([Buffer.from("garb"), randomBytes(sizes[index % sizes.length]! - 4)]));
    const answers = await postInTurn(baseURL!, `/${project.path_with_namespace}.git/git-upload-pack`, { "Content-Type": "application/x-git-upload-pack-request" }, bodies);
    const refusal = 'Bad request: the body is not a git-upload-pack request (bad pkt-line length "garb").\n';
    expect(answers.map((answer) => ("error" in answer ? answer.error : `${answer.status} ${answer.body}`))).toEqual(bodies.map(() => `400 ${refusal}`));
  });

  test("a path with malformed or doubly encoded percent-encoding names no repository: asked for credentials, then not found", async ({ request }) => {
    const owner = await createUser(request);
    const project = await createProject(request, owner.token, { visibility: "public" });
    const [namespace, name] = project.path_with_namespace.split("/") as [string, string];
    // What a path naming no project answers anonymously today.
    const unknownProject = await request.get(`/${namespace}/nothing-here.git/info/refs?service=git-upload-pack`);
    expect(unknownProject.status()).toBe(401);
    const challenge = unknownProject.headers()["www-authenticate"];
    const notFound = "The project you were looking for could not be found or you don't have permission to view it.\n";
    const paths = [
      `/${namespace}/%25E0.git`,
      `/${namespace}/${name}%E0.git`,
      `/${namespace}%E0/${name}.git`,
      // The public project's name, encoded twice: decoded once, as every path is, it names nothing.
      `/${namespace}/${name}%252Egit`,
    ];
    for (const path of paths) {
      const calls = [
        (headers: Record<string, string>) => request.get(`${path}/info/refs?service=git-upload-pack`, { headers }),
        (headers: Record<string, string>) =>
          request.post(`${path}/git-upload-pack`, { headers: { ...headers, "Content-Type": "application/x-git-upload-pack-request" }, data: Buffer.from("0000") }),
      ];
      for (const call of calls) {
        const anonymous = await call({});
        expect(anonymous.status(), path).toBe(401);
        expect(anonymous.headers()["www-authenticate"], path).toBe(challenge);
        const signedIn = await call(basic(owner.token));
        expect(signedIn.status(), path).toBe(404);
        expect(await signedIn.text(), path).toBe(notFound);
      }
    }
  });

  test("a push larger than git's post buffer (sent chunked, after a probe) goes through under the default size limit", async ({ request, baseURL }) => {
    const owner = await createUser(request);
    const project = await createProject(request, owner.token);
    const remote = remoteUrl(baseURL!, project.path_with_namespace, { password: owner.token });
    const work = git.dir("work");
    await git.ok(["init", "--quiet", work]);
    // Random bytes do not compress: the pack is over git's 1 MiB http.postBuffer, so git probes, then sends it chunked.
    const content = randomBytes(3 * 1024 * 1024).toString("base64");
    const head = await git.commit(work, "blob.txt", content, "A large file");
    await git.ok(["push", "--quiet", remote, "main"], work);

    const events = await request.get(`/api/v4/projects/${project.id}/events?action=pushed`, { headers: asToken(owner.token) });
    expect(((await events.json()) as { push_data: { commit_to: string } }[]).map((event) => event.push_data.commit_to)).toEqual([head]);
    const clone = git.dir("clone");
    await git.ok(["clone", "--quiet", remote, clone]);
    expect(await git.ok(["rev-parse", "HEAD"], clone)).toBe(head);
    expect(await git.ok(["show", "HEAD:blob.txt"], clone)).toBe(content);
  });
});
