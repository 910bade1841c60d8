import "server-only";
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { access, chmod, mkdir, readdir, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { childProcessEnv, env } from "@/lib/env";

/**
 * The post-receive hook every repository gets: git hands it the `old new ref` lines of the refs a push actually
 * updated, and it appends them to the file the service names for that push, which turns them into push events.
 */
export const postReceiveHook = `#!/bin/sh
# Installed by the service: hands the refs this push updated back to it (see lib/git/repositories.ts).
if [ -n "$PUSH_UPDATES_FILE" ]; then
  cat >> "$PUSH_UPDATES_FILE"
else
  cat > /dev/null
fi
exit 0
`;

/**
 * The branch a new repository's HEAD names before anything is pushed (GitLab's default `main`): the project's
 * default branch until the first push chooses one.
 */
export const initialBranch = "main";

/** Environment for every git command the service runs: no user or system configuration leaks in. */
export function gitEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  // The type's NODE_ENV is only a declaration of the framework's; child processes need not have it.
  return childProcessEnv({ GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", GIT_TERMINAL_PROMPT: "0", ...extra }) as NodeJS.ProcessEnv;
}

export function repositoriesRoot(): string {
  return path.resolve(env.REPOSITORIES_DIR);
}

/** The directory name of a project's bare repository, relative to the repositories root. */
export function repositoryName(projectId: number): string {
  return `${projectId}.git`;
}

export function repositoryPath(projectId: number): string {
  return path.join(repositoriesRoot(), repositoryName(projectId));
}

/** Runs git and resolves with its stdout; rejects with git's stderr on failure. `env` adds to git's environment. */
export function git(args: string[], options: { cwd?: string; input?: string; env?: Record<string, string> } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      "git",
      args,
      { cwd: options.cwd, env: gitEnv(options.env), maxBuffer: 16 * 1024 * 1024, encoding: "utf8" },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`git ${args[0]} failed: ${stderr.trim() || error.message}`));
        else resolve(stdout);
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}

/**
 * The project's bare repository, created on first use. It is built under a temporary name and renamed into place,
 * so concurrent first requests never see a half-made repository.
 */
export async function ensureRepository(projectId: number): Promise<string> {
  const target = repositoryPath(projectId);
  if (await exists(path.join(target, "hooks", "post-receive"))) return target;
  await mkdir(repositoriesRoot(), { recursive: true });
  if (!(await exists(target))) {
    const staging = path.join(repositoriesRoot(), `.tmp-${projectId}-${randomBytes(6).toString("hex")}`);
    await git(["init", "--quiet", "--bare", `--initial-branch=${initialBranch}`, staging]);
    await installHook(staging);
    try {
      await rename(staging, target);
    } catch (error) {
      await rm(staging, { recursive: true, force: true });
      // Another request created it first.
      if (!(await exists(target))) throw error;
    }
  }
  await installHook(target);
  return target;
}

async function installHook(repository: string): Promise<void> {
  const hooks = path.join(repository, "hooks");
  await mkdir(hooks, { recursive: true });
  const hook = path.join(hooks, "post-receive");
  const staging = `${hook}.${randomBytes(4).toString("hex")}`;
  await writeFile(staging, postReceiveHook, { mode: 0o755 });
  await chmod(staging, 0o755);
  await rename(staging, hook);
}

/** Every ref of a repository and the object it points at. */
export async function listRefs(repository: string): Promise<Map<string, string>> {
  const output = await git(["for-each-ref", "--format=%(objectname) %(refname)"], { cwd: repository });
  const refs = new Map<string, string>();
  for (const line of output.split("\n")) {
    const space = line.indexOf(" ");
    if (space > 0) refs.set(line.slice(space + 1), line.slice(0, space));
  }
  return refs;
}

/** A project's repository directory if it was ever created (by a first clone or push), else null. */
async function existingRepository(projectId: number): Promise<string | null> {
  const repository = repositoryPath(projectId);
  return (await exists(repository)) ? repository : null;
}

/** Whether `branch` exists in the project's repository. */
export async function branchExists(projectId: number, branch: string): Promise<boolean> {
  const repository = await existingRepository(projectId);
  if (!repository) return false;
  const ref = `refs/heads/${branch}`;
  // Only a well-formed branch name: revision syntax (`main~1`, `main^`) must not find a commit.
  const wellFormed = await git(["check-ref-format", ref]).then(
    () => true,
    () => false,
  );
  if (!wellFormed) return false;
  const sha = await git(["rev-parse", "--verify", "--quiet", `${ref}^{commit}`], { cwd: repository }).catch(() => "");
  return sha.trim() !== "";
}

/** Points the repository's HEAD, which clones check out, at an existing branch (the project's default branch). */
export async function setHead(projectId: number, branch: string): Promise<void> {
  await git(["symbolic-ref", "HEAD", `refs/heads/${branch}`], { cwd: repositoryPath(projectId) });
}

/** How many commits `branch` has (GitLab's `commit_count` is its default branch's); 0 without the branch. */
export async function commitCount(projectId: number, branch: string | null): Promise<number> {
  if (branch === null || !(await branchExists(projectId, branch))) return 0;
  const output = await git(["rev-list", "--count", `refs/heads/${branch}`, "--"], { cwd: repositoryPath(projectId) });
  return Number(output.trim()) || 0;
}

/** The bytes the project's repository takes on disk (0 before it exists): GitLab's `repository_size`. */
export async function repositorySize(projectId: number): Promise<number> {
  const repository = await existingRepository(projectId);
  return repository ? directorySize(repository) : 0;
}

async function directorySize(directory: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(directory, { withFileTypes: true }).catch(() => [])) {
    const entryPath = path.join(directory, entry.name);
    if (entry.isDirectory()) total += await directorySize(entryPath);
    else if (entry.isFile()) total += (await stat(entryPath).catch(() => ({ size: 0 }))).size;
  }
  return total;
}

/**
 * Moves a project's repository out of its place, in one rename, to a name no project has; answers where it went
 * (null when it never existed). No git request reaches it there; `reattachRepository` puts it back.
 */
export async function detachRepository(projectId: number): Promise<string | null> {
  const repository = await existingRepository(projectId);
  if (!repository) return null;
  const detached = path.join(repositoriesRoot(), `.deleted-${projectId}-${randomBytes(6).toString("hex")}`);
  await rename(repository, detached);
  return detached;
}

export async function reattachRepository(projectId: number, detached: string): Promise<void> {
  await rename(detached, repositoryPath(projectId));
}

/** Deletes a detached repository from disk. */
export async function discardRepository(detached: string): Promise<void> {
  await rm(detached, { recursive: true, force: true });
}

/** A commit's author (and committer): who made it, and when. */
export interface CommitAuthor {
  name: string;
  email: string;
  time: Date;
}

/** The all-zero object name git uses for "no commit" in ref updates. */
export const zeroSha = "0000000000000000000000000000000000000000";

/**
 * Writes a first commit holding `files` (paths at the repository's root) on a new `branch`, with git's plumbing, as a
 * push would leave it: the branch must not exist yet (update-ref checks that with the old value), so a push that got
 * there first is never overwritten. Answers the commit's object name.
 */
export async function commitToNewBranch(
  repository: string,
  commit: { branch: string; message: string; author: CommitAuthor; files: { path: string; content: string }[] },
): Promise<string> {
  const entries: string[] = [];
  for (const file of commit.files) {
    const blob = (await git(["hash-object", "-w", "--stdin"], { cwd: repository, input: file.content })).trim();
    entries.push(`100644 blob ${blob}\t${file.path}`);
  }
  const tree = (await git(["mktree"], { cwd: repository, input: `${entries.join("\n")}\n` })).trim();
  const date = `@${Math.floor(commit.author.time.getTime() / 1000)} +0000`;
  const identity = {
    GIT_AUTHOR_NAME: commit.author.name,
    GIT_AUTHOR_EMAIL: commit.author.email,
    GIT_AUTHOR_DATE: date,
    GIT_COMMITTER_NAME: commit.author.name,
    GIT_COMMITTER_EMAIL: commit.author.email,
    GIT_COMMITTER_DATE: date,
  };
  const sha = (await git(["commit-tree", tree], { cwd: repository, input: commit.message, env: identity })).trim();
  await git(["update-ref", `refs/heads/${commit.branch}`, sha, zeroSha], { cwd: repository });
  return sha;
}
