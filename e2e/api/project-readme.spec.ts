import { readFileSync } from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { asToken, createUser, uniqueName } from "../support/api";
import { GitSandbox, remoteUrl } from "../support/git";
import { requirePythonGitlab, runPythonGitlab } from "../support/python-gitlab";

test.describe("POST /projects with initialize_with_readme", () => {
  test("starts main with one commit adding README.md, by the creator, and records the push as GitLab does", async ({ request, baseURL }) => {
    const user = await createUser(request);
    const name = uniqueName("Readme");
    const created = await request.post("/api/v4/projects", {
      headers: asToken(user.token),
      data: { name, description: "A project that starts with a README.", initialize_with_readme: true },
    });
    expect(created.status(), await created.text()).toBe(201);
    const project = (await created.json()) as { id: number; path_with_namespace: string; http_url_to_repo: string };
    expect(project).toMatchObject({ default_branch: "main", empty_repo: false });

    const git = new GitSandbox();
    let head: string;
    try {
      const clone = git.dir("clone");
      await git.ok(["clone", "--quiet", remoteUrl(baseURL!, project.path_with_namespace, { password: user.token }), clone]);
      expect(await git.ok(["log", "--format=%an <%ae>|%s", "main"], clone)).toBe(`User ${user.username} <${user.email}>|Initial commit`);
      expect(await git.ok(["ls-files"], clone)).toBe("README.md");
      const readme = readFileSync(path.join(clone, "README.md"), "utf8");
      expect(readme.startsWith(`# ${name}\n\nA project that starts with a README.\n`)).toBe(true);
      expect(readme).toContain(`git remote add origin ${project.http_url_to_repo}`);
      head = await git.ok(["rev-parse", "HEAD"], clone);
    } finally {
      git.dispose();
    }

    const events = await request.get(`/api/v4/projects/${project.id}/events?sort=asc`, { headers: asToken(user.token) });
    expect((await events.json()) as unknown[]).toEqual([
      expect.objectContaining({ action_name: "created", author_username: user.username }),
      expect.objectContaining({
        action_name: "pushed new",
        author_username: user.username,
        push_data: { commit_count: 1, action: "created", ref_type: "branch", commit_from: null, commit_to: head, ref: "main", commit_title: "Initial commit", ref_count: null },
      }),
    ]);
  });

  test("without it (or with false) the repository stays empty", async ({ request }) => {
    const user = await createUser(request);
    const created = await request.post("/api/v4/projects", { headers: asToken(user.token), data: { name: uniqueName("Empty"), initialize_with_readme: "false" } });
    expect(created.status(), await created.text()).toBe(201);
    expect(await created.json()).toMatchObject({ empty_repo: true });
  });

  test("python-gitlab's projects.create takes it", async ({ request, baseURL }) => {
    requirePythonGitlab();
    const user = await createUser(request);
    const out = runPythonGitlab(
      `
project = gl.projects.create({"name": args["name"], "initialize_with_readme": True})
out["created"] = [project.default_branch, project.empty_repo]
again = gl.projects.get(project.id)
out["read"] = [again.default_branch, again.empty_repo]
out["events"] = [e.action_name for e in again.events.list(sort="asc", get_all=True)]
`,
      { baseURL: baseURL!, token: user.token, args: { name: uniqueName("Python") } },
    );
    expect(out).toEqual({ created: ["main", false], read: ["main", false], events: ["created", "pushed new"] });
  });
});
