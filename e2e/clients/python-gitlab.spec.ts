import { expect, test } from "@playwright/test";
import { createProject, createUser } from "../support/api";
import { requirePythonGitlab, runPythonGitlab } from "../support/python-gitlab";

test.beforeEach(() => requirePythonGitlab());

test("python-gitlab signs in and lists owned projects with GitLab-style booleans", async ({ request, baseURL }) => {
  const user = await createUser(request);
  const project = await createProject(request, user.token);
  const out = runPythonGitlab(
    `
gl.auth()
out["username"] = gl.user.username
out["owned"] = [p.path_with_namespace for p in gl.projects.list(owned=True, get_all=True)]
out["membership"] = [p.id for p in gl.projects.list(membership=True, statistics=True, get_all=True)]
`,
    { baseURL: baseURL!, token: user.token },
  );
  expect(out).toEqual({ username: user.username, owned: [project.path_with_namespace], membership: [project.id] });
});
