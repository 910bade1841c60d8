import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

/** The outcome of one git command: it never throws, so tests can assert on failures too. */
export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A scratch directory with its own HOME, so no user configuration or credential helper takes part. */
export class GitSandbox {
  readonly root = mkdtempSync(path.join(tmpdir(), "e2e-git-"));

  /** The environment git runs in here; `overrides` replace its variables (a `PATH` of the test's choosing, say). */
  env(overrides: Record<string, string> = {}): NodeJS.ProcessEnv {
    return {
      PATH: process.env.PATH,
      HOME: this.root,
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_TERMINAL_PROMPT: "0",
      GIT_AUTHOR_NAME: "E2E Author",
      GIT_AUTHOR_EMAIL: "e2e@example.com",
      GIT_COMMITTER_NAME: "E2E Author",
      GIT_COMMITTER_EMAIL: "e2e@example.com",
      NODE_ENV: "test",
      ...overrides,
    } as NodeJS.ProcessEnv;
  }

  run(args: string[], cwd = this.root): Promise<GitResult> {
    return new Promise((resolve) => {
      execFile("git", ["-c", "credential.helper=", "-c", "init.defaultBranch=main", ...args], { cwd, env: this.env(), maxBuffer: 32 * 1024 * 1024 }, (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout: stdout.toString(), stderr: stderr.toString() });
      });
    });
  }

  /** Runs git and fails the test with git's own words when it does not succeed. */
  async ok(args: string[], cwd = this.root): Promise<string> {
    const result = await this.run(args, cwd);
    if (result.code !== 0) throw new Error(`git ${args.join(" ")} failed (${result.code}): ${result.stderr}`);
    return result.stdout.trim();
  }

  dir(name: string): string {
    return path.join(this.root, name);
  }

  /** Makes a commit that changes one file; returns its SHA. */
  async commit(repository: string, file: string, content: string, message: string): Promise<string> {
    writeFileSync(path.join(repository, file), content);
    await this.ok(["add", file], repository);
    await this.ok(["commit", "--quiet", "-m", message], repository);
    return this.ok(["rev-parse", "HEAD"], repository);
  }

  dispose(): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}

/** `http://<user>:<password>@host/namespace/project.git` for a test server's base URL. */
export function remoteUrl(baseURL: string, projectPath: string, credentials?: { username?: string; password: string }): string {
  const url = new URL(`/${projectPath}.git`, baseURL);
  if (credentials) {
    url.username = encodeURIComponent(credentials.username ?? "oauth2");
    url.password = encodeURIComponent(credentials.password);
  }
  return url.toString();
}

/**
 * A work repository whose `main` has `commits` commits, pushed to `remote` (a project's URL with credentials); answers
 * its directory, from which a test pushes more.
 */
export async function pushMain(git: GitSandbox, remote: string, commits: number, name = "work"): Promise<string> {
  const work = git.dir(name);
  await git.ok(["init", "--quiet", work]);
  for (let index = 1; index <= commits; index += 1) await git.commit(work, "file.txt", `${index}\n`, `Commit ${index}`);
  await git.ok(["remote", "add", "origin", remote], work);
  await git.ok(["push", "--quiet", "origin", "main"], work);
  return work;
}
