import { rmSync } from "node:fs";
import { afterAll, describe, expect, it, vi } from "vitest";
import { asc, eq } from "drizzle-orm";
import { events } from "@/lib/db/schema";
import { git, repositoryPath } from "@/lib/git/repositories";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { createTestUser, uniqueSuffix, userContext } from "@/lib/testing/fixtures";
import { createProject } from "./projects";

// Repositories are named by project id, which every fresh test database starts again: each run gets its own root.
const repositoriesRoot = vi.hoisted(() => (process.env.REPOSITORIES_DIR = `${process.env.TMPDIR ?? "/tmp"}/readme-test-repositories-${process.pid}-${Date.now()}`));

describe.each(testDatabases())("initialize_with_readme on $name", ({ open }) => {
  const handle = databaseForSuite(open);
  afterAll(() => rmSync(repositoriesRoot, { recursive: true, force: true }));

  it("starts the default branch with one commit adding README.md, by the creator, and records its push", async () => {
    const user = await createTestUser(handle.db);
    const name = `Readme ${uniqueSuffix()}`;
    const view = await createProject(userContext(handle.db, user), { name, description: "What it is.", initializeWithReadme: true });
    expect(view.project.defaultBranch).toBe("main");

    const repository = repositoryPath(view.project.id);
    const log = await git(["log", "--format=%H%n%an <%ae>%n%cn <%ce>%n%s", "refs/heads/main"], { cwd: repository });
    const [sha, author, committer, subject] = log.trim().split("\n");
    expect([author, committer, subject]).toEqual([`${user.name} <${user.email}>`, `${user.name} <${user.email}>`, "Initial commit"]);
    expect((await git(["ls-tree", "--name-only", "refs/heads/main"], { cwd: repository })).trim()).toBe("README.md");
    const readme = await git(["show", "refs/heads/main:README.md"], { cwd: repository });
    expect(readme.startsWith(`# ${name}\n\nWhat it is.\n`)).toBe(true);
    expect(readme).toContain(`git remote add origin http://`);
    expect((await git(["symbolic-ref", "HEAD"], { cwd: repository })).trim()).toBe("refs/heads/main");

    const recorded = await handle.db.select().from(events).where(eq(events.projectId, view.project.id)).orderBy(asc(events.id));
    expect(recorded.map((event) => [event.action, event.authorId, event.data])).toEqual([
      ["created", user.id, null],
      [
        "pushed",
        user.id,
        {
          push_data: {
            commit_count: 1,
            action: "created",
            ref_type: "branch",
            commit_from: null,
            commit_to: sha,
            ref: "main",
            commit_title: "Initial commit",
            ref_count: null,
          },
        },
      ],
    ]);
  });

  it("leaves the repository empty without it", async () => {
    const user = await createTestUser(handle.db);
    const view = await createProject(userContext(handle.db, user), { name: `Empty ${uniqueSuffix()}` });
    expect(view.project.defaultBranch).toBeNull();
    expect((await handle.db.select().from(events).where(eq(events.projectId, view.project.id))).map((event) => event.action)).toEqual(["created"]);
  });
});
