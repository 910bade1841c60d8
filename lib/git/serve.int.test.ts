import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { eq } from "drizzle-orm";
import { events } from "@/lib/db/schema";
import { createProject } from "@/lib/projects/projects";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { createTestUser, uniqueSuffix, userContext } from "@/lib/testing/fixtures";
import { insertPersonalAccessToken } from "@/lib/users/personal-access-tokens";
import { gitEnv, listRefs, repositoryPath } from "./repositories";
import { serveGitRequest } from "./serve";

// Repositories are named by project id, which every fresh test database starts again: each run gets its own root.
// Set before lib/env.ts reads the environment; the directory is made on first use.
const repositoriesRoot = vi.hoisted(() => {
  const root = `${process.env.TMPDIR ?? "/tmp"}/serve-test-repositories-${process.pid}-${Date.now()}`;
  process.env.REPOSITORIES_DIR = root;
  return root;
});

const maxPushBytes = 64 * 1024;
const zeroSha = "0".repeat(40);

function pkt(payload: string): Buffer {
  return Buffer.from(`${(Buffer.byteLength(payload) + 4).toString(16).padStart(4, "0")}${payload}`);
}

/** What `git push` sends for one new branch: the command, a flush-pkt and the pack, built with the real git. */
function pushBody(fileBytes: number): { sha: string; body: Buffer } {
  const work = mkdtempSync(path.join(tmpdir(), "serve-test-work-"));
  try {
    const git = (args: string[], input?: Buffer) =>
      execFileSync("git", args, {
        cwd: work,
        input,
        env: gitEnv({ GIT_AUTHOR_NAME: "T", GIT_AUTHOR_EMAIL: "t@example.com", GIT_COMMITTER_NAME: "T", GIT_COMMITTER_EMAIL: "t@example.com" }),
      });
    git(["init", "--quiet", "--initial-branch=main"]);
    // Random bytes do not compress, so the pack is about as large as the file.
    writeFileSync(path.join(work, "data.bin"), randomBytes(fileBytes));
    git(["add", "data.bin"]);
    git(["commit", "--quiet", "-m", "Data"]);
    const sha = git(["rev-parse", "HEAD"]).toString().trim();
    const pack = git(["pack-objects", "--stdout", "--revs", "--quiet"], Buffer.from(`${sha}\n`));
    return { sha, body: Buffer.concat([pkt(`${zeroSha} ${sha} refs/heads/main\0report-status\n`), Buffer.from("0000"), pack]) };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** The body as a chunked upload (no Content-Length), in 16 KiB pieces. */
function chunked(body: Buffer): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= body.length) return controller.close();
      controller.enqueue(new Uint8Array(body.subarray(offset, offset + 16 * 1024)));
      offset += 16 * 1024;
    },
  });
}

describe.each(testDatabases())("git pushes through serveGitRequest on $name", ({ open }) => {
  const handle = databaseForSuite(open);
  afterAll(() => rmSync(repositoriesRoot, { recursive: true, force: true }));

  async function projectWithPusher() {
    const owner = await createTestUser(handle.db);
    const view = await createProject(userContext(handle.db, owner), { name: `Push limit ${uniqueSuffix()}` });
    const { token } = await insertPersonalAccessToken(handle.db, owner.id, { name: "push", scopes: ["write_repository"] }, new Date());
    return { view, authorization: `Basic ${Buffer.from(`oauth2:${token}`).toString("base64")}` };
  }

  function push(view: Awaited<ReturnType<typeof projectWithPusher>>["view"], authorization: string, body: BodyInit, headers: Record<string, string> = {}) {
    const request = new Request(`http://localhost/${view.namespace.path}/${view.project.path}.git/git-receive-pack`, {
      method: "POST",
      headers: { Authorization: authorization, "Content-Type": "application/x-git-receive-pack-request", ...headers },
      body,
      duplex: "half",
    } as RequestInit);
    return serveGitRequest(
      request,
      { namespace: view.namespace.path, project: `${view.project.path}.git`, endpoint: "git-receive-pack" },
      { database: async () => handle.db, maxPushBytes },
    );
  }

  async function pushEventCount(projectId: number): Promise<number> {
    return (await handle.db.select().from(events).where(eq(events.projectId, projectId))).filter((event) => event.action === "pushed").length;
  }

  it("accepts a push within the limit", async () => {
    const { view, authorization } = await projectWithPusher();
    const { sha, body } = pushBody(8 * 1024);
    const response = await push(view, authorization, chunked(body));
    expect(response.status).toBe(200);
    expect(Buffer.from(await response.arrayBuffer()).toString("latin1")).toContain("ok refs/heads/main");
    expect(Object.fromEntries(await listRefs(repositoryPath(view.project.id)))).toEqual({ "refs/heads/main": sha });
    expect(await pushEventCount(view.project.id)).toBe(1);
  });

  it("refuses a push over the limit while it streams: 413, the repository unchanged, no push event", async () => {
    const { view, authorization } = await projectWithPusher();
    const { sha, body } = pushBody(maxPushBytes * 2);
    expect(body.length).toBeGreaterThan(maxPushBytes);
    const response = await push(view, authorization, chunked(body));
    expect(response.status).toBe(413);
    expect(response.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(await response.text()).toBe("Push rejected: it is larger than this server's maximum push size (65536 bytes).\n");
    const repository = repositoryPath(view.project.id);
    expect(await listRefs(repository)).toEqual(new Map());
    expect(() => execFileSync("git", ["cat-file", "-e", sha], { cwd: repository, stdio: "ignore" })).toThrow();
    expect(await pushEventCount(view.project.id)).toBe(0);
  });

  it("refuses a push whose declared length is over the limit before reading it", async () => {
    const { view, authorization } = await projectWithPusher();
    const { body } = pushBody(maxPushBytes * 2);
    const response = await push(view, authorization, new Uint8Array(body), { "Content-Length": String(body.length) });
    expect(response.status).toBe(413);
    expect(await response.text()).toBe("Push rejected: it is larger than this server's maximum push size (65536 bytes).\n");
    expect(await listRefs(repositoryPath(view.project.id))).toEqual(new Map());
    expect(await pushEventCount(view.project.id)).toBe(0);
  });

  it("reads a refused body to its end and drops it, never cancelling it (which would break the client's connection)", async () => {
    const { view, authorization } = await projectWithPusher();
    const { body } = pushBody(maxPushBytes * 2);
    const pieces = Math.ceil(body.length / (16 * 1024));
    let pulled = 0;
    let cancelled = false;
    const source = chunked(body).getReader();
    const tracked = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await source.read();
        if (done) return controller.close();
        pulled += 1;
        controller.enqueue(value);
      },
      cancel() {
        cancelled = true;
      },
    });
    const response = await push(view, authorization, tracked);
    expect(response.status).toBe(413);
    await vi.waitFor(() => expect(pulled).toBe(pieces));
    expect(cancelled).toBe(false);
  });

  it("takes the path's segments as the framework decoded them: what is still encoded in them names no project", async () => {
    const { view, authorization } = await projectWithPusher();
    const request = new Request("http://localhost/", { headers: { Authorization: authorization } });
    for (const project of [`${view.project.path}%2Egit`, "%E0.git", `${view.project.path}%E0`]) {
      const response = await serveGitRequest(
        new Request(`http://localhost/x/y/info/refs?service=git-upload-pack`, request),
        { namespace: view.namespace.path, project, endpoint: "info-refs" },
        { database: async () => handle.db, maxPushBytes },
      );
      expect(response.status, project).toBe(404);
      expect(await response.text()).toBe("The project you were looking for could not be found or you don't have permission to view it.\n");
    }
  });
});

