import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { ensureRepository, gitEnv } from "@/lib/git/repositories";

const run = promisify(execFile);

/**
 * Gives a project's repository branches with commits of their own, made in a scratch clone and pushed straight to the
 * bare repository (as a push would leave it, without the service's push handling). Answers each branch's head.
 */
export async function pushBranches(projectId: number, branches: Record<string, number>): Promise<Map<string, string>> {
  const repository = await ensureRepository(projectId);
  const work = await mkdtemp(path.join(tmpdir(), "test-git-work-"));
  const env = gitEnv({ GIT_AUTHOR_NAME: "T", GIT_AUTHOR_EMAIL: "t@example.com", GIT_COMMITTER_NAME: "T", GIT_COMMITTER_EMAIL: "t@example.com" });
  const git = async (...args: string[]) => (await run("git", args, { cwd: work, env })).stdout.trim();
  const heads = new Map<string, string>();
  try {
    await git("init", "--quiet", "--initial-branch=scratch");
    for (const [branch, commits] of Object.entries(branches)) {
      await git("checkout", "--quiet", "--orphan", `work-${heads.size}`);
      for (let index = 0; index < commits; index += 1) {
        await writeFile(path.join(work, "file.txt"), `${branch} ${index}\n`);
        await git("add", "file.txt");
        await git("commit", "--quiet", "-m", `${branch} commit ${index + 1}`);
      }
      await git("push", "--quiet", repository, `HEAD:refs/heads/${branch}`);
      heads.set(branch, await git("rev-parse", "HEAD"));
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  return heads;
}
