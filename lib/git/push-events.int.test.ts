import { rmSync } from "node:fs";
import { afterAll, describe, expect, it, vi } from "vitest";
import { eq } from "drizzle-orm";
import { projects } from "@/lib/db/schema";
import { listProjectEvents } from "@/lib/events/query";
import { createProject } from "@/lib/projects/projects";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { createTestUser, uniqueSuffix, userContext } from "@/lib/testing/fixtures";
import { pushBranches } from "@/lib/testing/git";
import { adoptDefaultBranch, recordPushEvents } from "./push-events";
import { git, repositoryPath } from "./repositories";
import type { RefUpdate } from "./ref-updates";

// Repositories are named by project id, which every fresh test database starts again: each run gets its own root.
const repositoriesRoot = vi.hoisted(() => {
  const root = `${process.env.TMPDIR ?? "/tmp"}/push-events-test-repositories-${process.pid}-${Date.now()}`;
  process.env.REPOSITORIES_DIR = root;
  return root;
});

const zero = "0".repeat(40);

describe.each(testDatabases())("push events on $name", ({ open }) => {
  const handle = databaseForSuite(open);
  afterAll(() => rmSync(repositoriesRoot, { recursive: true, force: true }));

  async function project() {
    const owner = await createTestUser(handle.db);
    const ctx = userContext(handle.db, owner);
    const view = await createProject(ctx, { name: `Pushes ${uniqueSuffix()}` });
    return { owner, ctx, projectId: view.project.id, repository: repositoryPath(view.project.id) };
  }

  const defaultBranchOf = async (projectId: number) =>
    (await handle.db.select({ defaultBranch: projects.defaultBranch }).from(projects).where(eq(projects.id, projectId)))[0]?.defaultBranch;

  const created = (heads: Map<string, string>): RefUpdate[] =>
    [...heads].map(([branch, sha]) => ({ oldSha: zero, newSha: sha, ref: `refs/heads/${branch}` }));

  it("the first branch pushed becomes the default branch, in the repository and the project; later pushes keep it", async () => {
    const { projectId, repository } = await project();
    expect(await defaultBranchOf(projectId)).toBeNull();
    const first = await pushBranches(projectId, { develop: 1 });
    await adoptDefaultBranch(handle.db, { projectId, repository, updates: created(first) });
    expect(await defaultBranchOf(projectId)).toBe("develop");
    expect((await git(["symbolic-ref", "HEAD"], { cwd: repository })).trim()).toBe("refs/heads/develop");

    const later = await pushBranches(projectId, { main: 1 });
    await adoptDefaultBranch(handle.db, { projectId, repository, updates: created(later) });
    expect(await defaultBranchOf(projectId)).toBe("develop");
    expect((await git(["symbolic-ref", "HEAD"], { cwd: repository })).trim()).toBe("refs/heads/develop");
  });

  it("a first push to the branch HEAD already names records that branch", async () => {
    const { projectId, repository } = await project();
    const heads = await pushBranches(projectId, { feature: 1, main: 1 });
    await adoptDefaultBranch(handle.db, { projectId, repository, updates: created(heads) });
    expect(await defaultBranchOf(projectId)).toBe("main");
  });

  it("more like changes than GitLab's limit record one bulk event, which the Events API shows as GitLab does", async () => {
    const { owner, ctx, projectId, repository } = await project();
    const refsBefore = new Map<string, string>();
    const heads = await pushBranches(projectId, { b1: 1, b2: 1, b3: 1, b4: 1, b5: 1 });
    const tags = await pushBranches(projectId, { t: 2 });
    const tagUpdate = { oldSha: zero, newSha: tags.get("t")!, ref: "refs/tags/v1" };
    await git(["update-ref", "refs/tags/v1", tags.get("t")!], { cwd: repository });
    const recorded = await recordPushEvents(handle.db, {
      projectId,
      authorId: owner.id,
      repository,
      updates: [...created(heads), tagUpdate],
      refsBefore,
      now: new Date(),
    });
    expect(recorded.map((data) => [data.ref_type, data.action, data.ref, data.ref_count])).toEqual([
      ["branch", "created", null, 5],
      ["tag", "created", "v1", null],
    ]);

    const page = await listProjectEvents(ctx, String(projectId), { action: "pushed", sort: "asc" }, { kind: "offset", page: { page: 1, perPage: 20, offset: 0 } });
    const [bulk, tag] = page.items.map((item) => JSON.parse(item.json) as Record<string, unknown>);
    expect(bulk).toMatchObject({
      action_name: "pushed new",
      author_id: owner.id,
      push_data: { commit_count: 0, action: "created", ref_type: "branch", commit_from: null, commit_to: null, ref: null, commit_title: null, ref_count: 5 },
    });
    expect(tag).toMatchObject({ action_name: "pushed new", push_data: { ref_type: "tag", ref: "v1", commit_count: 2, ref_count: null } });
    expect(page.total).toBe(2);
  });
});
